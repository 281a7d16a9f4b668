import * as $protobuf from "protobufjs/minimal.js";
import Long = require("long");

/** Namespace envoy. */
export namespace envoy {

    /** Namespace service. */
    namespace service {

        /** Namespace ratelimit. */
        namespace ratelimit {

            /** Namespace v3. */
            namespace v3 {

                /**
                 * Properties of a RateLimitRequest.
                 * @deprecated Use envoy.service.ratelimit.v3.RateLimitRequest.$Properties instead.
                 */
                interface IRateLimitRequest extends envoy.service.ratelimit.v3.RateLimitRequest.$Properties {
                }

                /** Represents a RateLimitRequest. */
                class RateLimitRequest {

                    /**
                     * Constructs a new RateLimitRequest.
                     * @param [properties] Properties to set
                     */
                    constructor(properties?: envoy.service.ratelimit.v3.RateLimitRequest.$Properties);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];

                    /** RateLimitRequest domain. */
                    domain: string;

                    /** RateLimitRequest descriptors. */
                    descriptors: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties[];

                    /** RateLimitRequest hits_addend. */
                    hits_addend: number;

                    /**
                     * Creates a new RateLimitRequest instance using the specified properties.
                     * @param [properties] Properties to set
                     * @returns RateLimitRequest instance
                     */
                    static create(properties: envoy.service.ratelimit.v3.RateLimitRequest.$Shape): envoy.service.ratelimit.v3.RateLimitRequest & envoy.service.ratelimit.v3.RateLimitRequest.$Shape;
                    static create(properties?: envoy.service.ratelimit.v3.RateLimitRequest.$Properties): envoy.service.ratelimit.v3.RateLimitRequest;

                    /**
                     * Encodes the specified RateLimitRequest message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitRequest.verify|verify} messages.
                     * @param message RateLimitRequest message or plain object to encode
                     * @param [writer] Writer to encode to
                     * @returns Writer
                     */
                    static encode(message: envoy.service.ratelimit.v3.RateLimitRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                    /**
                     * Decodes a RateLimitRequest message from the specified reader or buffer.
                     * @param reader Reader or buffer to decode from
                     * @param [length] Message length if known beforehand
                     * @returns {envoy.service.ratelimit.v3.RateLimitRequest & envoy.service.ratelimit.v3.RateLimitRequest.$Shape} RateLimitRequest
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.service.ratelimit.v3.RateLimitRequest & envoy.service.ratelimit.v3.RateLimitRequest.$Shape;
                }

                namespace RateLimitRequest {

                    /** Properties of a RateLimitRequest. */
                    interface $Properties {

                        /** RateLimitRequest domain */
                        domain?: (string|null);

                        /** RateLimitRequest descriptors */
                        descriptors?: (envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties[]|null);

                        /** RateLimitRequest hits_addend */
                        hits_addend?: (number|null);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];
                    }

                    /** Shape of a RateLimitRequest. */
                    type $Shape = envoy.service.ratelimit.v3.RateLimitRequest.$Properties;
                }

                /**
                 * Properties of a RateLimitResponse.
                 * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.$Properties instead.
                 */
                interface IRateLimitResponse extends envoy.service.ratelimit.v3.RateLimitResponse.$Properties {
                }

                /** Represents a RateLimitResponse. */
                class RateLimitResponse {

                    /**
                     * Constructs a new RateLimitResponse.
                     * @param [properties] Properties to set
                     */
                    constructor(properties?: envoy.service.ratelimit.v3.RateLimitResponse.$Properties);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];

                    /** RateLimitResponse overall_code. */
                    overall_code: envoy.service.ratelimit.v3.RateLimitResponse.Code;

                    /** RateLimitResponse statuses. */
                    statuses: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties[];

                    /** RateLimitResponse response_headers_to_add. */
                    response_headers_to_add: envoy.config.core.v3.HeaderValue.$Properties[];

                    /** RateLimitResponse request_headers_to_add. */
                    request_headers_to_add: envoy.config.core.v3.HeaderValue.$Properties[];

                    /** RateLimitResponse raw_body. */
                    raw_body: Uint8Array;

                    /** RateLimitResponse dynamic_metadata. */
                    dynamic_metadata?: (google.protobuf.Struct.$Properties|null);

                    /** RateLimitResponse quota. */
                    quota?: (envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null);

                    /**
                     * Creates a new RateLimitResponse instance using the specified properties.
                     * @param [properties] Properties to set
                     * @returns RateLimitResponse instance
                     */
                    static create(properties: envoy.service.ratelimit.v3.RateLimitResponse.$Shape): envoy.service.ratelimit.v3.RateLimitResponse & envoy.service.ratelimit.v3.RateLimitResponse.$Shape;
                    static create(properties?: envoy.service.ratelimit.v3.RateLimitResponse.$Properties): envoy.service.ratelimit.v3.RateLimitResponse;

                    /**
                     * Encodes the specified RateLimitResponse message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.verify|verify} messages.
                     * @param message RateLimitResponse message or plain object to encode
                     * @param [writer] Writer to encode to
                     * @returns Writer
                     */
                    static encode(message: envoy.service.ratelimit.v3.RateLimitResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                    /**
                     * Decodes a RateLimitResponse message from the specified reader or buffer.
                     * @param reader Reader or buffer to decode from
                     * @param [length] Message length if known beforehand
                     * @returns {envoy.service.ratelimit.v3.RateLimitResponse & envoy.service.ratelimit.v3.RateLimitResponse.$Shape} RateLimitResponse
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.service.ratelimit.v3.RateLimitResponse & envoy.service.ratelimit.v3.RateLimitResponse.$Shape;
                }

                namespace RateLimitResponse {

                    /** Properties of a RateLimitResponse. */
                    interface $Properties {

                        /** RateLimitResponse overall_code */
                        overall_code?: (envoy.service.ratelimit.v3.RateLimitResponse.Code|null);

                        /** RateLimitResponse statuses */
                        statuses?: (envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties[]|null);

                        /** RateLimitResponse response_headers_to_add */
                        response_headers_to_add?: (envoy.config.core.v3.HeaderValue.$Properties[]|null);

                        /** RateLimitResponse request_headers_to_add */
                        request_headers_to_add?: (envoy.config.core.v3.HeaderValue.$Properties[]|null);

                        /** RateLimitResponse raw_body */
                        raw_body?: (Uint8Array|null);

                        /** RateLimitResponse dynamic_metadata */
                        dynamic_metadata?: (google.protobuf.Struct.$Properties|null);

                        /** RateLimitResponse quota */
                        quota?: (envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];
                    }

                    /** Shape of a RateLimitResponse. */
                    type $Shape = {
                      overall_code?: envoy.service.ratelimit.v3.RateLimitResponse.Code|null;
                      statuses?: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape[]|null;
                      response_headers_to_add?: envoy.config.core.v3.HeaderValue.$Shape[]|null;
                      request_headers_to_add?: envoy.config.core.v3.HeaderValue.$Shape[]|null;
                      raw_body?: Uint8Array|null;
                      dynamic_metadata?: google.protobuf.Struct.$Shape|null;
                      quota?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape|null;
                      $unknowns?: Uint8Array[];
                    };

                    /** Code enum. */
                    enum Code {

                        /** UNKNOWN value */
                        UNKNOWN = 0,

                        /** OK value */
                        OK = 1,

                        /** OVER_LIMIT value */
                        OVER_LIMIT = 2
                    }

                    /**
                     * Properties of a RateLimit.
                     * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties instead.
                     */
                    interface IRateLimit extends envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties {
                    }

                    /** Represents a RateLimit. */
                    class RateLimit {

                        /**
                         * Constructs a new RateLimit.
                         * @param [properties] Properties to set
                         */
                        constructor(properties?: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];

                        /** RateLimit name. */
                        name: string;

                        /** RateLimit requests_per_unit. */
                        requests_per_unit: number;

                        /** RateLimit unit. */
                        unit: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit;

                        /**
                         * Creates a new RateLimit instance using the specified properties.
                         * @param [properties] Properties to set
                         * @returns RateLimit instance
                         */
                        static create(properties: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.RateLimit & envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape;
                        static create(properties?: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.RateLimit;

                        /**
                         * Encodes the specified RateLimit message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.verify|verify} messages.
                         * @param message RateLimit message or plain object to encode
                         * @param [writer] Writer to encode to
                         * @returns Writer
                         */
                        static encode(message: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                        /**
                         * Decodes a RateLimit message from the specified reader or buffer.
                         * @param reader Reader or buffer to decode from
                         * @param [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit & envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape} RateLimit
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.service.ratelimit.v3.RateLimitResponse.RateLimit & envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape;
                    }

                    namespace RateLimit {

                        /** Properties of a RateLimit. */
                        interface $Properties {

                            /** RateLimit name */
                            name?: (string|null);

                            /** RateLimit requests_per_unit */
                            requests_per_unit?: (number|null);

                            /** RateLimit unit */
                            unit?: (envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit|null);

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];
                        }

                        /** Shape of a RateLimit. */
                        type $Shape = envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties;

                        /** Unit enum. */
                        enum Unit {

                            /** UNKNOWN value */
                            UNKNOWN = 0,

                            /** SECOND value */
                            SECOND = 1,

                            /** MINUTE value */
                            MINUTE = 2,

                            /** HOUR value */
                            HOUR = 3,

                            /** DAY value */
                            DAY = 4,

                            /** WEEK value */
                            WEEK = 7,

                            /** MONTH value */
                            MONTH = 5,

                            /** YEAR value */
                            YEAR = 6
                        }
                    }

                    /**
                     * Properties of a Quota.
                     * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties instead.
                     */
                    interface IQuota extends envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties {
                    }

                    /** Represents a Quota. */
                    class Quota {

                        /**
                         * Constructs a new Quota.
                         * @param [properties] Properties to set
                         */
                        constructor(properties?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];

                        /** Quota requests. */
                        requests: number;

                        /** Quota valid_until. */
                        valid_until?: (google.protobuf.Timestamp.$Properties|null);

                        /** Quota id. */
                        id: string;

                        /** Quota expiration_specifier. */
                        expiration_specifier?: "valid_until";

                        /**
                         * Creates a new Quota instance using the specified properties.
                         * @param [properties] Properties to set
                         * @returns Quota instance
                         */
                        static create(properties: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.Quota & envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape;
                        static create(properties?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.Quota;

                        /**
                         * Encodes the specified Quota message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.Quota.verify|verify} messages.
                         * @param message Quota message or plain object to encode
                         * @param [writer] Writer to encode to
                         * @returns Writer
                         */
                        static encode(message: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                        /**
                         * Decodes a Quota message from the specified reader or buffer.
                         * @param reader Reader or buffer to decode from
                         * @param [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.Quota & envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape} Quota
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.service.ratelimit.v3.RateLimitResponse.Quota & envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape;
                    }

                    namespace Quota {

                        /** Properties of a Quota. */
                        interface $Properties {

                            /** Quota requests */
                            requests?: (number|null);

                            /** Quota valid_until */
                            valid_until?: (google.protobuf.Timestamp.$Properties|null);

                            /** Quota id */
                            id?: (string|null);

                            /** Quota expiration_specifier */
                            expiration_specifier?: "valid_until";

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];
                        }

                        /** Narrowed shape of a Quota. */
                        type $Shape = {
                          requests?: number|null;
                          valid_until?: google.protobuf.Timestamp.$Shape|null;
                          id?: string|null;
                          $unknowns?: Uint8Array[];
                        } & (
                          ({ expiration_specifier?: undefined; valid_until?: null }|{ expiration_specifier?: "valid_until"; valid_until: google.protobuf.Timestamp.$Shape })
                        );
                    }

                    /**
                     * Properties of a DescriptorStatus.
                     * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties instead.
                     */
                    interface IDescriptorStatus extends envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties {
                    }

                    /** Represents a DescriptorStatus. */
                    class DescriptorStatus {

                        /**
                         * Constructs a new DescriptorStatus.
                         * @param [properties] Properties to set
                         */
                        constructor(properties?: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];

                        /** DescriptorStatus code. */
                        code: envoy.service.ratelimit.v3.RateLimitResponse.Code;

                        /** DescriptorStatus current_limit. */
                        current_limit?: (envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties|null);

                        /** DescriptorStatus limit_remaining. */
                        limit_remaining: number;

                        /** DescriptorStatus duration_until_reset. */
                        duration_until_reset?: (google.protobuf.Duration.$Properties|null);

                        /** DescriptorStatus quota. */
                        quota?: (envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null);

                        /**
                         * Creates a new DescriptorStatus instance using the specified properties.
                         * @param [properties] Properties to set
                         * @returns DescriptorStatus instance
                         */
                        static create(properties: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus & envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape;
                        static create(properties?: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;

                        /**
                         * Encodes the specified DescriptorStatus message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.verify|verify} messages.
                         * @param message DescriptorStatus message or plain object to encode
                         * @param [writer] Writer to encode to
                         * @returns Writer
                         */
                        static encode(message: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                        /**
                         * Decodes a DescriptorStatus message from the specified reader or buffer.
                         * @param reader Reader or buffer to decode from
                         * @param [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus & envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape} DescriptorStatus
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus & envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape;
                    }

                    namespace DescriptorStatus {

                        /** Properties of a DescriptorStatus. */
                        interface $Properties {

                            /** DescriptorStatus code */
                            code?: (envoy.service.ratelimit.v3.RateLimitResponse.Code|null);

                            /** DescriptorStatus current_limit */
                            current_limit?: (envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties|null);

                            /** DescriptorStatus limit_remaining */
                            limit_remaining?: (number|null);

                            /** DescriptorStatus duration_until_reset */
                            duration_until_reset?: (google.protobuf.Duration.$Properties|null);

                            /** DescriptorStatus quota */
                            quota?: (envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null);

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];
                        }

                        /** Shape of a DescriptorStatus. */
                        type $Shape = {
                          code?: envoy.service.ratelimit.v3.RateLimitResponse.Code|null;
                          current_limit?: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape|null;
                          limit_remaining?: number|null;
                          duration_until_reset?: google.protobuf.Duration.$Shape|null;
                          quota?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape|null;
                          $unknowns?: Uint8Array[];
                        };
                    }
                }
            }
        }
    }

    /** Namespace config. */
    namespace config {

        /** Namespace core. */
        namespace core {

            /** Namespace v3. */
            namespace v3 {

                /**
                 * Properties of a HeaderValue.
                 * @deprecated Use envoy.config.core.v3.HeaderValue.$Properties instead.
                 */
                interface IHeaderValue extends envoy.config.core.v3.HeaderValue.$Properties {
                }

                /** Represents a HeaderValue. */
                class HeaderValue {

                    /**
                     * Constructs a new HeaderValue.
                     * @param [properties] Properties to set
                     */
                    constructor(properties?: envoy.config.core.v3.HeaderValue.$Properties);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];

                    /** HeaderValue key. */
                    key: string;

                    /** HeaderValue value. */
                    value: string;

                    /** HeaderValue raw_value. */
                    raw_value: Uint8Array;

                    /**
                     * Creates a new HeaderValue instance using the specified properties.
                     * @param [properties] Properties to set
                     * @returns HeaderValue instance
                     */
                    static create(properties: envoy.config.core.v3.HeaderValue.$Shape): envoy.config.core.v3.HeaderValue & envoy.config.core.v3.HeaderValue.$Shape;
                    static create(properties?: envoy.config.core.v3.HeaderValue.$Properties): envoy.config.core.v3.HeaderValue;

                    /**
                     * Encodes the specified HeaderValue message. Does not implicitly {@link envoy.config.core.v3.HeaderValue.verify|verify} messages.
                     * @param message HeaderValue message or plain object to encode
                     * @param [writer] Writer to encode to
                     * @returns Writer
                     */
                    static encode(message: envoy.config.core.v3.HeaderValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                    /**
                     * Decodes a HeaderValue message from the specified reader or buffer.
                     * @param reader Reader or buffer to decode from
                     * @param [length] Message length if known beforehand
                     * @returns {envoy.config.core.v3.HeaderValue & envoy.config.core.v3.HeaderValue.$Shape} HeaderValue
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.config.core.v3.HeaderValue & envoy.config.core.v3.HeaderValue.$Shape;
                }

                namespace HeaderValue {

                    /** Properties of a HeaderValue. */
                    interface $Properties {

                        /** HeaderValue key */
                        key?: (string|null);

                        /** HeaderValue value */
                        value?: (string|null);

                        /** HeaderValue raw_value */
                        raw_value?: (Uint8Array|null);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];
                    }

                    /** Shape of a HeaderValue. */
                    type $Shape = envoy.config.core.v3.HeaderValue.$Properties;
                }
            }
        }
    }

    /** Namespace extensions. */
    namespace extensions {

        /** Namespace common. */
        namespace common {

            /** Namespace ratelimit. */
            namespace ratelimit {

                /** Namespace v3. */
                namespace v3 {

                    /**
                     * Properties of a RateLimitDescriptor.
                     * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties instead.
                     */
                    interface IRateLimitDescriptor extends envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties {
                    }

                    /** Represents a RateLimitDescriptor. */
                    class RateLimitDescriptor {

                        /**
                         * Constructs a new RateLimitDescriptor.
                         * @param [properties] Properties to set
                         */
                        constructor(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties);

                        /** Unknown fields preserved while decoding when enabled */
                        $unknowns?: Uint8Array[];

                        /** RateLimitDescriptor entries. */
                        entries: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties[];

                        /** RateLimitDescriptor limit. */
                        limit?: (envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties|null);

                        /** RateLimitDescriptor hits_addend. */
                        hits_addend?: (google.protobuf.UInt64Value.$Properties|null);

                        /**
                         * Creates a new RateLimitDescriptor instance using the specified properties.
                         * @param [properties] Properties to set
                         * @returns RateLimitDescriptor instance
                         */
                        static create(properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape;
                        static create(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;

                        /**
                         * Encodes the specified RateLimitDescriptor message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.verify|verify} messages.
                         * @param message RateLimitDescriptor message or plain object to encode
                         * @param [writer] Writer to encode to
                         * @returns Writer
                         */
                        static encode(message: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                        /**
                         * Decodes a RateLimitDescriptor message from the specified reader or buffer.
                         * @param reader Reader or buffer to decode from
                         * @param [length] Message length if known beforehand
                         * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape} RateLimitDescriptor
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape;
                    }

                    namespace RateLimitDescriptor {

                        /** Properties of a RateLimitDescriptor. */
                        interface $Properties {

                            /** RateLimitDescriptor entries */
                            entries?: (envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties[]|null);

                            /** RateLimitDescriptor limit */
                            limit?: (envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties|null);

                            /** RateLimitDescriptor hits_addend */
                            hits_addend?: (google.protobuf.UInt64Value.$Properties|null);

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];
                        }

                        /** Shape of a RateLimitDescriptor. */
                        type $Shape = envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties;

                        /**
                         * Properties of an Entry.
                         * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties instead.
                         */
                        interface IEntry extends envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties {
                        }

                        /** Represents an Entry. */
                        class Entry {

                            /**
                             * Constructs a new Entry.
                             * @param [properties] Properties to set
                             */
                            constructor(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties);

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];

                            /** Entry key. */
                            key: string;

                            /** Entry value. */
                            value: string;

                            /**
                             * Creates a new Entry instance using the specified properties.
                             * @param [properties] Properties to set
                             * @returns Entry instance
                             */
                            static create(properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape;
                            static create(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry;

                            /**
                             * Encodes the specified Entry message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.verify|verify} messages.
                             * @param message Entry message or plain object to encode
                             * @param [writer] Writer to encode to
                             * @returns Writer
                             */
                            static encode(message: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                            /**
                             * Decodes an Entry message from the specified reader or buffer.
                             * @param reader Reader or buffer to decode from
                             * @param [length] Message length if known beforehand
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape} Entry
                             * @throws {Error} If the payload is not a reader or valid buffer
                             * @throws {$protobuf.util.ProtocolError} If required fields are missing
                             */
                            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape;
                        }

                        namespace Entry {

                            /** Properties of an Entry. */
                            interface $Properties {

                                /** Entry key */
                                key?: (string|null);

                                /** Entry value */
                                value?: (string|null);

                                /** Unknown fields preserved while decoding when enabled */
                                $unknowns?: Uint8Array[];
                            }

                            /** Shape of an Entry. */
                            type $Shape = envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties;
                        }

                        /**
                         * Properties of a RateLimitOverride.
                         * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties instead.
                         */
                        interface IRateLimitOverride extends envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties {
                        }

                        /** Represents a RateLimitOverride. */
                        class RateLimitOverride {

                            /**
                             * Constructs a new RateLimitOverride.
                             * @param [properties] Properties to set
                             */
                            constructor(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties);

                            /** Unknown fields preserved while decoding when enabled */
                            $unknowns?: Uint8Array[];

                            /** RateLimitOverride requests_per_unit. */
                            requests_per_unit: number;

                            /** RateLimitOverride unit. */
                            unit: envoy.type.v3.RateLimitUnit;

                            /**
                             * Creates a new RateLimitOverride instance using the specified properties.
                             * @param [properties] Properties to set
                             * @returns RateLimitOverride instance
                             */
                            static create(properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape;
                            static create(properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride;

                            /**
                             * Encodes the specified RateLimitOverride message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.verify|verify} messages.
                             * @param message RateLimitOverride message or plain object to encode
                             * @param [writer] Writer to encode to
                             * @returns Writer
                             */
                            static encode(message: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                            /**
                             * Decodes a RateLimitOverride message from the specified reader or buffer.
                             * @param reader Reader or buffer to decode from
                             * @param [length] Message length if known beforehand
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape} RateLimitOverride
                             * @throws {Error} If the payload is not a reader or valid buffer
                             * @throws {$protobuf.util.ProtocolError} If required fields are missing
                             */
                            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape;
                        }

                        namespace RateLimitOverride {

                            /** Properties of a RateLimitOverride. */
                            interface $Properties {

                                /** RateLimitOverride requests_per_unit */
                                requests_per_unit?: (number|null);

                                /** RateLimitOverride unit */
                                unit?: (envoy.type.v3.RateLimitUnit|null);

                                /** Unknown fields preserved while decoding when enabled */
                                $unknowns?: Uint8Array[];
                            }

                            /** Shape of a RateLimitOverride. */
                            type $Shape = envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties;
                        }
                    }
                }
            }
        }
    }

    /** Namespace type. */
    namespace type {

        /** Namespace v3. */
        namespace v3 {

            /** RateLimitUnit enum. */
            enum RateLimitUnit {

                /** UNKNOWN value */
                UNKNOWN = 0,

                /** SECOND value */
                SECOND = 1,

                /** MINUTE value */
                MINUTE = 2,

                /** HOUR value */
                HOUR = 3,

                /** DAY value */
                DAY = 4,

                /** MONTH value */
                MONTH = 5,

                /** YEAR value */
                YEAR = 6,

                /** WEEK value */
                WEEK = 7
            }
        }
    }
}

/** Namespace google. */
export namespace google {

    /** Namespace protobuf. */
    namespace protobuf {

        /**
         * Properties of a DoubleValue.
         * @deprecated Use google.protobuf.DoubleValue.$Properties instead.
         */
        interface IDoubleValue extends google.protobuf.DoubleValue.$Properties {
        }

        /** Represents a DoubleValue. */
        class DoubleValue {

            /**
             * Constructs a new DoubleValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.DoubleValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DoubleValue value. */
            value: number;

            /**
             * Creates a new DoubleValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DoubleValue instance
             */
            static create(properties: google.protobuf.DoubleValue.$Shape): google.protobuf.DoubleValue & google.protobuf.DoubleValue.$Shape;
            static create(properties?: google.protobuf.DoubleValue.$Properties): google.protobuf.DoubleValue;

            /**
             * Encodes the specified DoubleValue message. Does not implicitly {@link google.protobuf.DoubleValue.verify|verify} messages.
             * @param message DoubleValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.DoubleValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DoubleValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.DoubleValue & google.protobuf.DoubleValue.$Shape} DoubleValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.DoubleValue & google.protobuf.DoubleValue.$Shape;
        }

        namespace DoubleValue {

            /** Properties of a DoubleValue. */
            interface $Properties {

                /** DoubleValue value */
                value?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DoubleValue. */
            type $Shape = google.protobuf.DoubleValue.$Properties;
        }

        /**
         * Properties of a FloatValue.
         * @deprecated Use google.protobuf.FloatValue.$Properties instead.
         */
        interface IFloatValue extends google.protobuf.FloatValue.$Properties {
        }

        /** Represents a FloatValue. */
        class FloatValue {

            /**
             * Constructs a new FloatValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.FloatValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** FloatValue value. */
            value: number;

            /**
             * Creates a new FloatValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns FloatValue instance
             */
            static create(properties: google.protobuf.FloatValue.$Shape): google.protobuf.FloatValue & google.protobuf.FloatValue.$Shape;
            static create(properties?: google.protobuf.FloatValue.$Properties): google.protobuf.FloatValue;

            /**
             * Encodes the specified FloatValue message. Does not implicitly {@link google.protobuf.FloatValue.verify|verify} messages.
             * @param message FloatValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.FloatValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a FloatValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.FloatValue & google.protobuf.FloatValue.$Shape} FloatValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.FloatValue & google.protobuf.FloatValue.$Shape;
        }

        namespace FloatValue {

            /** Properties of a FloatValue. */
            interface $Properties {

                /** FloatValue value */
                value?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a FloatValue. */
            type $Shape = google.protobuf.FloatValue.$Properties;
        }

        /**
         * Properties of an Int64Value.
         * @deprecated Use google.protobuf.Int64Value.$Properties instead.
         */
        interface IInt64Value extends google.protobuf.Int64Value.$Properties {
        }

        /** Represents an Int64Value. */
        class Int64Value {

            /**
             * Constructs a new Int64Value.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Int64Value.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Int64Value value. */
            value: (number|Long);

            /**
             * Creates a new Int64Value instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Int64Value instance
             */
            static create(properties: google.protobuf.Int64Value.$Shape): google.protobuf.Int64Value & google.protobuf.Int64Value.$Shape;
            static create(properties?: google.protobuf.Int64Value.$Properties): google.protobuf.Int64Value;

            /**
             * Encodes the specified Int64Value message. Does not implicitly {@link google.protobuf.Int64Value.verify|verify} messages.
             * @param message Int64Value message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Int64Value.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an Int64Value message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Int64Value & google.protobuf.Int64Value.$Shape} Int64Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Int64Value & google.protobuf.Int64Value.$Shape;
        }

        namespace Int64Value {

            /** Properties of an Int64Value. */
            interface $Properties {

                /** Int64Value value */
                value?: (number|Long|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an Int64Value. */
            type $Shape = google.protobuf.Int64Value.$Properties;
        }

        /**
         * Properties of a UInt64Value.
         * @deprecated Use google.protobuf.UInt64Value.$Properties instead.
         */
        interface IUInt64Value extends google.protobuf.UInt64Value.$Properties {
        }

        /** Represents a UInt64Value. */
        class UInt64Value {

            /**
             * Constructs a new UInt64Value.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.UInt64Value.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** UInt64Value value. */
            value: (number|Long);

            /**
             * Creates a new UInt64Value instance using the specified properties.
             * @param [properties] Properties to set
             * @returns UInt64Value instance
             */
            static create(properties: google.protobuf.UInt64Value.$Shape): google.protobuf.UInt64Value & google.protobuf.UInt64Value.$Shape;
            static create(properties?: google.protobuf.UInt64Value.$Properties): google.protobuf.UInt64Value;

            /**
             * Encodes the specified UInt64Value message. Does not implicitly {@link google.protobuf.UInt64Value.verify|verify} messages.
             * @param message UInt64Value message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.UInt64Value.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a UInt64Value message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.UInt64Value & google.protobuf.UInt64Value.$Shape} UInt64Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.UInt64Value & google.protobuf.UInt64Value.$Shape;
        }

        namespace UInt64Value {

            /** Properties of a UInt64Value. */
            interface $Properties {

                /** UInt64Value value */
                value?: (number|Long|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a UInt64Value. */
            type $Shape = google.protobuf.UInt64Value.$Properties;
        }

        /**
         * Properties of an Int32Value.
         * @deprecated Use google.protobuf.Int32Value.$Properties instead.
         */
        interface IInt32Value extends google.protobuf.Int32Value.$Properties {
        }

        /** Represents an Int32Value. */
        class Int32Value {

            /**
             * Constructs a new Int32Value.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Int32Value.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Int32Value value. */
            value: number;

            /**
             * Creates a new Int32Value instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Int32Value instance
             */
            static create(properties: google.protobuf.Int32Value.$Shape): google.protobuf.Int32Value & google.protobuf.Int32Value.$Shape;
            static create(properties?: google.protobuf.Int32Value.$Properties): google.protobuf.Int32Value;

            /**
             * Encodes the specified Int32Value message. Does not implicitly {@link google.protobuf.Int32Value.verify|verify} messages.
             * @param message Int32Value message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Int32Value.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an Int32Value message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Int32Value & google.protobuf.Int32Value.$Shape} Int32Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Int32Value & google.protobuf.Int32Value.$Shape;
        }

        namespace Int32Value {

            /** Properties of an Int32Value. */
            interface $Properties {

                /** Int32Value value */
                value?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an Int32Value. */
            type $Shape = google.protobuf.Int32Value.$Properties;
        }

        /**
         * Properties of a UInt32Value.
         * @deprecated Use google.protobuf.UInt32Value.$Properties instead.
         */
        interface IUInt32Value extends google.protobuf.UInt32Value.$Properties {
        }

        /** Represents a UInt32Value. */
        class UInt32Value {

            /**
             * Constructs a new UInt32Value.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.UInt32Value.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** UInt32Value value. */
            value: number;

            /**
             * Creates a new UInt32Value instance using the specified properties.
             * @param [properties] Properties to set
             * @returns UInt32Value instance
             */
            static create(properties: google.protobuf.UInt32Value.$Shape): google.protobuf.UInt32Value & google.protobuf.UInt32Value.$Shape;
            static create(properties?: google.protobuf.UInt32Value.$Properties): google.protobuf.UInt32Value;

            /**
             * Encodes the specified UInt32Value message. Does not implicitly {@link google.protobuf.UInt32Value.verify|verify} messages.
             * @param message UInt32Value message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.UInt32Value.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a UInt32Value message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.UInt32Value & google.protobuf.UInt32Value.$Shape} UInt32Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.UInt32Value & google.protobuf.UInt32Value.$Shape;
        }

        namespace UInt32Value {

            /** Properties of a UInt32Value. */
            interface $Properties {

                /** UInt32Value value */
                value?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a UInt32Value. */
            type $Shape = google.protobuf.UInt32Value.$Properties;
        }

        /**
         * Properties of a BoolValue.
         * @deprecated Use google.protobuf.BoolValue.$Properties instead.
         */
        interface IBoolValue extends google.protobuf.BoolValue.$Properties {
        }

        /** Represents a BoolValue. */
        class BoolValue {

            /**
             * Constructs a new BoolValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.BoolValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** BoolValue value. */
            value: boolean;

            /**
             * Creates a new BoolValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns BoolValue instance
             */
            static create(properties: google.protobuf.BoolValue.$Shape): google.protobuf.BoolValue & google.protobuf.BoolValue.$Shape;
            static create(properties?: google.protobuf.BoolValue.$Properties): google.protobuf.BoolValue;

            /**
             * Encodes the specified BoolValue message. Does not implicitly {@link google.protobuf.BoolValue.verify|verify} messages.
             * @param message BoolValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.BoolValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a BoolValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.BoolValue & google.protobuf.BoolValue.$Shape} BoolValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.BoolValue & google.protobuf.BoolValue.$Shape;
        }

        namespace BoolValue {

            /** Properties of a BoolValue. */
            interface $Properties {

                /** BoolValue value */
                value?: (boolean|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a BoolValue. */
            type $Shape = google.protobuf.BoolValue.$Properties;
        }

        /**
         * Properties of a StringValue.
         * @deprecated Use google.protobuf.StringValue.$Properties instead.
         */
        interface IStringValue extends google.protobuf.StringValue.$Properties {
        }

        /** Represents a StringValue. */
        class StringValue {

            /**
             * Constructs a new StringValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.StringValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** StringValue value. */
            value: string;

            /**
             * Creates a new StringValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns StringValue instance
             */
            static create(properties: google.protobuf.StringValue.$Shape): google.protobuf.StringValue & google.protobuf.StringValue.$Shape;
            static create(properties?: google.protobuf.StringValue.$Properties): google.protobuf.StringValue;

            /**
             * Encodes the specified StringValue message. Does not implicitly {@link google.protobuf.StringValue.verify|verify} messages.
             * @param message StringValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.StringValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a StringValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.StringValue & google.protobuf.StringValue.$Shape} StringValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.StringValue & google.protobuf.StringValue.$Shape;
        }

        namespace StringValue {

            /** Properties of a StringValue. */
            interface $Properties {

                /** StringValue value */
                value?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a StringValue. */
            type $Shape = google.protobuf.StringValue.$Properties;
        }

        /**
         * Properties of a BytesValue.
         * @deprecated Use google.protobuf.BytesValue.$Properties instead.
         */
        interface IBytesValue extends google.protobuf.BytesValue.$Properties {
        }

        /** Represents a BytesValue. */
        class BytesValue {

            /**
             * Constructs a new BytesValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.BytesValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** BytesValue value. */
            value: Uint8Array;

            /**
             * Creates a new BytesValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns BytesValue instance
             */
            static create(properties: google.protobuf.BytesValue.$Shape): google.protobuf.BytesValue & google.protobuf.BytesValue.$Shape;
            static create(properties?: google.protobuf.BytesValue.$Properties): google.protobuf.BytesValue;

            /**
             * Encodes the specified BytesValue message. Does not implicitly {@link google.protobuf.BytesValue.verify|verify} messages.
             * @param message BytesValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.BytesValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a BytesValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.BytesValue & google.protobuf.BytesValue.$Shape} BytesValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.BytesValue & google.protobuf.BytesValue.$Shape;
        }

        namespace BytesValue {

            /** Properties of a BytesValue. */
            interface $Properties {

                /** BytesValue value */
                value?: (Uint8Array|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a BytesValue. */
            type $Shape = google.protobuf.BytesValue.$Properties;
        }

        /**
         * Properties of a Duration.
         * @deprecated Use google.protobuf.Duration.$Properties instead.
         */
        interface IDuration extends google.protobuf.Duration.$Properties {
        }

        /** Represents a Duration. */
        class Duration {

            /**
             * Constructs a new Duration.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Duration.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Duration seconds. */
            seconds: (number|Long);

            /** Duration nanos. */
            nanos: number;

            /**
             * Creates a new Duration instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Duration instance
             */
            static create(properties: google.protobuf.Duration.$Shape): google.protobuf.Duration & google.protobuf.Duration.$Shape;
            static create(properties?: google.protobuf.Duration.$Properties): google.protobuf.Duration;

            /**
             * Encodes the specified Duration message. Does not implicitly {@link google.protobuf.Duration.verify|verify} messages.
             * @param message Duration message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Duration.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Duration message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Duration & google.protobuf.Duration.$Shape} Duration
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Duration & google.protobuf.Duration.$Shape;
        }

        namespace Duration {

            /** Properties of a Duration. */
            interface $Properties {

                /** Duration seconds */
                seconds?: (number|Long|null);

                /** Duration nanos */
                nanos?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Duration. */
            type $Shape = google.protobuf.Duration.$Properties;
        }

        /**
         * Properties of a Struct.
         * @deprecated Use google.protobuf.Struct.$Properties instead.
         */
        interface IStruct extends google.protobuf.Struct.$Properties {
        }

        /** Represents a Struct. */
        class Struct {

            /**
             * Constructs a new Struct.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Struct.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Struct fields. */
            fields: { [k: string]: google.protobuf.Value.$Properties };

            /**
             * Creates a new Struct instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Struct instance
             */
            static create(properties: google.protobuf.Struct.$Shape): google.protobuf.Struct & google.protobuf.Struct.$Shape;
            static create(properties?: google.protobuf.Struct.$Properties): google.protobuf.Struct;

            /**
             * Encodes the specified Struct message. Does not implicitly {@link google.protobuf.Struct.verify|verify} messages.
             * @param message Struct message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Struct.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Struct message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Struct & google.protobuf.Struct.$Shape} Struct
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Struct & google.protobuf.Struct.$Shape;
        }

        namespace Struct {

            /** Properties of a Struct. */
            interface $Properties {

                /** Struct fields */
                fields?: ({ [k: string]: google.protobuf.Value.$Properties }|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Struct. */
            type $Shape = {
              fields?: { [k: string]: google.protobuf.Value.$Shape }|null;
              $unknowns?: Uint8Array[];
            };
        }

        /**
         * Properties of a Value.
         * @deprecated Use google.protobuf.Value.$Properties instead.
         */
        interface IValue extends google.protobuf.Value.$Properties {
        }

        /** Represents a Value. */
        class Value {

            /**
             * Constructs a new Value.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Value.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Value nullValue. */
            nullValue?: (google.protobuf.NullValue|null);

            /** Value numberValue. */
            numberValue?: (number|null);

            /** Value stringValue. */
            stringValue?: (string|null);

            /** Value boolValue. */
            boolValue?: (boolean|null);

            /** Value structValue. */
            structValue?: (google.protobuf.Struct.$Properties|null);

            /** Value listValue. */
            listValue?: (google.protobuf.ListValue.$Properties|null);

            /** Value kind. */
            kind?: ("nullValue"|"numberValue"|"stringValue"|"boolValue"|"structValue"|"listValue");

            /**
             * Creates a new Value instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Value instance
             */
            static create(properties: google.protobuf.Value.$Shape): google.protobuf.Value & google.protobuf.Value.$Shape;
            static create(properties?: google.protobuf.Value.$Properties): google.protobuf.Value;

            /**
             * Encodes the specified Value message. Does not implicitly {@link google.protobuf.Value.verify|verify} messages.
             * @param message Value message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Value.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Value message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Value & google.protobuf.Value.$Shape} Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Value & google.protobuf.Value.$Shape;
        }

        namespace Value {

            /** Properties of a Value. */
            interface $Properties {

                /** Value nullValue */
                nullValue?: (google.protobuf.NullValue|null);

                /** Value numberValue */
                numberValue?: (number|null);

                /** Value stringValue */
                stringValue?: (string|null);

                /** Value boolValue */
                boolValue?: (boolean|null);

                /** Value structValue */
                structValue?: (google.protobuf.Struct.$Properties|null);

                /** Value listValue */
                listValue?: (google.protobuf.ListValue.$Properties|null);

                /** Value kind */
                kind?: ("nullValue"|"numberValue"|"stringValue"|"boolValue"|"structValue"|"listValue");

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Narrowed shape of a Value. */
            type $Shape = {
              nullValue?: google.protobuf.NullValue|null;
              numberValue?: number|null;
              stringValue?: string|null;
              boolValue?: boolean|null;
              structValue?: google.protobuf.Struct.$Shape|null;
              listValue?: google.protobuf.ListValue.$Shape|null;
              $unknowns?: Uint8Array[];
            } & (
              ({ kind?: undefined; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "nullValue"; nullValue: google.protobuf.NullValue; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "numberValue"; nullValue?: null; numberValue: number; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "stringValue"; nullValue?: null; numberValue?: null; stringValue: string; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "boolValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue: boolean; structValue?: null; listValue?: null }|{ kind?: "structValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue: google.protobuf.Struct.$Shape; listValue?: null }|{ kind?: "listValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue: google.protobuf.ListValue.$Shape })
            );
        }

        /** NullValue enum. */
        enum NullValue {

            /** NULL_VALUE value */
            NULL_VALUE = 0
        }

        /**
         * Properties of a ListValue.
         * @deprecated Use google.protobuf.ListValue.$Properties instead.
         */
        interface IListValue extends google.protobuf.ListValue.$Properties {
        }

        /** Represents a ListValue. */
        class ListValue {

            /**
             * Constructs a new ListValue.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.ListValue.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** ListValue values. */
            values: google.protobuf.Value.$Properties[];

            /**
             * Creates a new ListValue instance using the specified properties.
             * @param [properties] Properties to set
             * @returns ListValue instance
             */
            static create(properties: google.protobuf.ListValue.$Shape): google.protobuf.ListValue & google.protobuf.ListValue.$Shape;
            static create(properties?: google.protobuf.ListValue.$Properties): google.protobuf.ListValue;

            /**
             * Encodes the specified ListValue message. Does not implicitly {@link google.protobuf.ListValue.verify|verify} messages.
             * @param message ListValue message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.ListValue.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a ListValue message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.ListValue & google.protobuf.ListValue.$Shape} ListValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.ListValue & google.protobuf.ListValue.$Shape;
        }

        namespace ListValue {

            /** Properties of a ListValue. */
            interface $Properties {

                /** ListValue values */
                values?: (google.protobuf.Value.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a ListValue. */
            type $Shape = {
              values?: google.protobuf.Value.$Shape[]|null;
              $unknowns?: Uint8Array[];
            };
        }

        /**
         * Properties of a Timestamp.
         * @deprecated Use google.protobuf.Timestamp.$Properties instead.
         */
        interface ITimestamp extends google.protobuf.Timestamp.$Properties {
        }

        /** Represents a Timestamp. */
        class Timestamp {

            /**
             * Constructs a new Timestamp.
             * @param [properties] Properties to set
             */
            constructor(properties?: google.protobuf.Timestamp.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Timestamp seconds. */
            seconds: (number|Long);

            /** Timestamp nanos. */
            nanos: number;

            /**
             * Creates a new Timestamp instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Timestamp instance
             */
            static create(properties: google.protobuf.Timestamp.$Shape): google.protobuf.Timestamp & google.protobuf.Timestamp.$Shape;
            static create(properties?: google.protobuf.Timestamp.$Properties): google.protobuf.Timestamp;

            /**
             * Encodes the specified Timestamp message. Does not implicitly {@link google.protobuf.Timestamp.verify|verify} messages.
             * @param message Timestamp message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: google.protobuf.Timestamp.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Timestamp message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {google.protobuf.Timestamp & google.protobuf.Timestamp.$Shape} Timestamp
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): google.protobuf.Timestamp & google.protobuf.Timestamp.$Shape;
        }

        namespace Timestamp {

            /** Properties of a Timestamp. */
            interface $Properties {

                /** Timestamp seconds */
                seconds?: (number|Long|null);

                /** Timestamp nanos */
                nanos?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Timestamp. */
            type $Shape = google.protobuf.Timestamp.$Properties;
        }
    }
}

/** Namespace sluice. */
export namespace sluice {

    /** Namespace v1. */
    namespace v1 {

        /**
         * Properties of an Entry.
         * @deprecated Use sluice.v1.Entry.$Properties instead.
         */
        interface IEntry extends sluice.v1.Entry.$Properties {
        }

        /** Represents an Entry. */
        class Entry {

            /**
             * Constructs a new Entry.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.Entry.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Entry key. */
            key: string;

            /** Entry value. */
            value: string;

            /**
             * Creates a new Entry instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Entry instance
             */
            static create(properties: sluice.v1.Entry.$Shape): sluice.v1.Entry & sluice.v1.Entry.$Shape;
            static create(properties?: sluice.v1.Entry.$Properties): sluice.v1.Entry;

            /**
             * Encodes the specified Entry message. Does not implicitly {@link sluice.v1.Entry.verify|verify} messages.
             * @param message Entry message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.Entry.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an Entry message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.Entry & sluice.v1.Entry.$Shape} Entry
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.Entry & sluice.v1.Entry.$Shape;
        }

        namespace Entry {

            /** Properties of an Entry. */
            interface $Properties {

                /** Entry key */
                key?: (string|null);

                /** Entry value */
                value?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an Entry. */
            type $Shape = sluice.v1.Entry.$Properties;
        }

        /**
         * Properties of a Descriptor.
         * @deprecated Use sluice.v1.Descriptor.$Properties instead.
         */
        interface IDescriptor extends sluice.v1.Descriptor.$Properties {
        }

        /** Represents a Descriptor. */
        class Descriptor {

            /**
             * Constructs a new Descriptor.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.Descriptor.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** Descriptor entries. */
            entries: sluice.v1.Entry.$Properties[];

            /**
             * Creates a new Descriptor instance using the specified properties.
             * @param [properties] Properties to set
             * @returns Descriptor instance
             */
            static create(properties: sluice.v1.Descriptor.$Shape): sluice.v1.Descriptor & sluice.v1.Descriptor.$Shape;
            static create(properties?: sluice.v1.Descriptor.$Properties): sluice.v1.Descriptor;

            /**
             * Encodes the specified Descriptor message. Does not implicitly {@link sluice.v1.Descriptor.verify|verify} messages.
             * @param message Descriptor message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.Descriptor.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a Descriptor message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.Descriptor & sluice.v1.Descriptor.$Shape} Descriptor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.Descriptor & sluice.v1.Descriptor.$Shape;
        }

        namespace Descriptor {

            /** Properties of a Descriptor. */
            interface $Properties {

                /** Descriptor entries */
                entries?: (sluice.v1.Entry.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a Descriptor. */
            type $Shape = sluice.v1.Descriptor.$Properties;
        }

        /**
         * Properties of a CheckRequest.
         * @deprecated Use sluice.v1.CheckRequest.$Properties instead.
         */
        interface ICheckRequest extends sluice.v1.CheckRequest.$Properties {
        }

        /** Represents a CheckRequest. */
        class CheckRequest {

            /**
             * Constructs a new CheckRequest.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.CheckRequest.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CheckRequest identifier. */
            identifier: string;

            /** CheckRequest dimension. */
            dimension: string;

            /** CheckRequest endpoint. */
            endpoint: string;

            /** CheckRequest cost. */
            cost?: (number|null);

            /** CheckRequest timestamp. */
            timestamp?: (number|Long|null);

            /** CheckRequest domain. */
            domain: string;

            /** CheckRequest descriptors. */
            descriptors: sluice.v1.Descriptor.$Properties[];

            /** CheckRequest idempotency_key. */
            idempotency_key: string;

            /**
             * Creates a new CheckRequest instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CheckRequest instance
             */
            static create(properties: sluice.v1.CheckRequest.$Shape): sluice.v1.CheckRequest & sluice.v1.CheckRequest.$Shape;
            static create(properties?: sluice.v1.CheckRequest.$Properties): sluice.v1.CheckRequest;

            /**
             * Encodes the specified CheckRequest message. Does not implicitly {@link sluice.v1.CheckRequest.verify|verify} messages.
             * @param message CheckRequest message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.CheckRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CheckRequest message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.CheckRequest & sluice.v1.CheckRequest.$Shape} CheckRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.CheckRequest & sluice.v1.CheckRequest.$Shape;
        }

        namespace CheckRequest {

            /** Properties of a CheckRequest. */
            interface $Properties {

                /** CheckRequest identifier */
                identifier?: (string|null);

                /** CheckRequest dimension */
                dimension?: (string|null);

                /** CheckRequest endpoint */
                endpoint?: (string|null);

                /** CheckRequest cost */
                cost?: (number|null);

                /** CheckRequest timestamp */
                timestamp?: (number|Long|null);

                /** CheckRequest domain */
                domain?: (string|null);

                /** CheckRequest descriptors */
                descriptors?: (sluice.v1.Descriptor.$Properties[]|null);

                /** CheckRequest idempotency_key */
                idempotency_key?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CheckRequest. */
            type $Shape = sluice.v1.CheckRequest.$Properties;
        }

        /**
         * Properties of a PolicyStatus.
         * @deprecated Use sluice.v1.PolicyStatus.$Properties instead.
         */
        interface IPolicyStatus extends sluice.v1.PolicyStatus.$Properties {
        }

        /** Represents a PolicyStatus. */
        class PolicyStatus {

            /**
             * Constructs a new PolicyStatus.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.PolicyStatus.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** PolicyStatus name. */
            name: string;

            /** PolicyStatus allowed. */
            allowed: boolean;

            /** PolicyStatus limit. */
            limit: number;

            /** PolicyStatus remaining. */
            remaining: number;

            /** PolicyStatus window_ms. */
            window_ms: (number|Long);

            /** PolicyStatus reset_after_ms. */
            reset_after_ms: (number|Long);

            /** PolicyStatus retry_after_ms. */
            retry_after_ms: (number|Long);

            /** PolicyStatus state. */
            state: string;

            /**
             * Creates a new PolicyStatus instance using the specified properties.
             * @param [properties] Properties to set
             * @returns PolicyStatus instance
             */
            static create(properties: sluice.v1.PolicyStatus.$Shape): sluice.v1.PolicyStatus & sluice.v1.PolicyStatus.$Shape;
            static create(properties?: sluice.v1.PolicyStatus.$Properties): sluice.v1.PolicyStatus;

            /**
             * Encodes the specified PolicyStatus message. Does not implicitly {@link sluice.v1.PolicyStatus.verify|verify} messages.
             * @param message PolicyStatus message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.PolicyStatus.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a PolicyStatus message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.PolicyStatus & sluice.v1.PolicyStatus.$Shape} PolicyStatus
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.PolicyStatus & sluice.v1.PolicyStatus.$Shape;
        }

        namespace PolicyStatus {

            /** Properties of a PolicyStatus. */
            interface $Properties {

                /** PolicyStatus name */
                name?: (string|null);

                /** PolicyStatus allowed */
                allowed?: (boolean|null);

                /** PolicyStatus limit */
                limit?: (number|null);

                /** PolicyStatus remaining */
                remaining?: (number|null);

                /** PolicyStatus window_ms */
                window_ms?: (number|Long|null);

                /** PolicyStatus reset_after_ms */
                reset_after_ms?: (number|Long|null);

                /** PolicyStatus retry_after_ms */
                retry_after_ms?: (number|Long|null);

                /** PolicyStatus state */
                state?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a PolicyStatus. */
            type $Shape = sluice.v1.PolicyStatus.$Properties;
        }

        /**
         * Properties of a DescriptorStatus.
         * @deprecated Use sluice.v1.DescriptorStatus.$Properties instead.
         */
        interface IDescriptorStatus extends sluice.v1.DescriptorStatus.$Properties {
        }

        /** Represents a DescriptorStatus. */
        class DescriptorStatus {

            /**
             * Constructs a new DescriptorStatus.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.DescriptorStatus.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DescriptorStatus code. */
            code: string;

            /** DescriptorStatus rule_id. */
            rule_id: string;

            /** DescriptorStatus limit. */
            limit: number;

            /** DescriptorStatus remaining. */
            remaining: number;

            /** DescriptorStatus reset_after_ms. */
            reset_after_ms: (number|Long);

            /** DescriptorStatus shadowed. */
            shadowed: boolean;

            /** DescriptorStatus delay_ms. */
            delay_ms: (number|Long);

            /**
             * Creates a new DescriptorStatus instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DescriptorStatus instance
             */
            static create(properties: sluice.v1.DescriptorStatus.$Shape): sluice.v1.DescriptorStatus & sluice.v1.DescriptorStatus.$Shape;
            static create(properties?: sluice.v1.DescriptorStatus.$Properties): sluice.v1.DescriptorStatus;

            /**
             * Encodes the specified DescriptorStatus message. Does not implicitly {@link sluice.v1.DescriptorStatus.verify|verify} messages.
             * @param message DescriptorStatus message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.DescriptorStatus.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DescriptorStatus message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.DescriptorStatus & sluice.v1.DescriptorStatus.$Shape} DescriptorStatus
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.DescriptorStatus & sluice.v1.DescriptorStatus.$Shape;
        }

        namespace DescriptorStatus {

            /** Properties of a DescriptorStatus. */
            interface $Properties {

                /** DescriptorStatus code */
                code?: (string|null);

                /** DescriptorStatus rule_id */
                rule_id?: (string|null);

                /** DescriptorStatus limit */
                limit?: (number|null);

                /** DescriptorStatus remaining */
                remaining?: (number|null);

                /** DescriptorStatus reset_after_ms */
                reset_after_ms?: (number|Long|null);

                /** DescriptorStatus shadowed */
                shadowed?: (boolean|null);

                /** DescriptorStatus delay_ms */
                delay_ms?: (number|Long|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DescriptorStatus. */
            type $Shape = sluice.v1.DescriptorStatus.$Properties;
        }

        /**
         * Properties of a CheckResponse.
         * @deprecated Use sluice.v1.CheckResponse.$Properties instead.
         */
        interface ICheckResponse extends sluice.v1.CheckResponse.$Properties {
        }

        /** Represents a CheckResponse. */
        class CheckResponse {

            /**
             * Constructs a new CheckResponse.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.CheckResponse.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CheckResponse allowed. */
            allowed: boolean;

            /** CheckResponse current_count. */
            current_count: number;

            /** CheckResponse limit. */
            limit: number;

            /** CheckResponse remaining. */
            remaining: number;

            /** CheckResponse reset_at. */
            reset_at: (number|Long);

            /** CheckResponse retry_after. */
            retry_after: (number|Long);

            /** CheckResponse reset_at_ms. */
            reset_at_ms: (number|Long);

            /** CheckResponse retry_after_ms. */
            retry_after_ms: (number|Long);

            /** CheckResponse delay_ms. */
            delay_ms: (number|Long);

            /** CheckResponse state. */
            state: string;

            /** CheckResponse replayed. */
            replayed: boolean;

            /** CheckResponse policies. */
            policies: sluice.v1.PolicyStatus.$Properties[];

            /** CheckResponse descriptors. */
            descriptors: sluice.v1.DescriptorStatus.$Properties[];

            /** CheckResponse reason. */
            reason: string;

            /**
             * Creates a new CheckResponse instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CheckResponse instance
             */
            static create(properties: sluice.v1.CheckResponse.$Shape): sluice.v1.CheckResponse & sluice.v1.CheckResponse.$Shape;
            static create(properties?: sluice.v1.CheckResponse.$Properties): sluice.v1.CheckResponse;

            /**
             * Encodes the specified CheckResponse message. Does not implicitly {@link sluice.v1.CheckResponse.verify|verify} messages.
             * @param message CheckResponse message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.CheckResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CheckResponse message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.CheckResponse & sluice.v1.CheckResponse.$Shape} CheckResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.CheckResponse & sluice.v1.CheckResponse.$Shape;
        }

        namespace CheckResponse {

            /** Properties of a CheckResponse. */
            interface $Properties {

                /** CheckResponse allowed */
                allowed?: (boolean|null);

                /** CheckResponse current_count */
                current_count?: (number|null);

                /** CheckResponse limit */
                limit?: (number|null);

                /** CheckResponse remaining */
                remaining?: (number|null);

                /** CheckResponse reset_at */
                reset_at?: (number|Long|null);

                /** CheckResponse retry_after */
                retry_after?: (number|Long|null);

                /** CheckResponse reset_at_ms */
                reset_at_ms?: (number|Long|null);

                /** CheckResponse retry_after_ms */
                retry_after_ms?: (number|Long|null);

                /** CheckResponse delay_ms */
                delay_ms?: (number|Long|null);

                /** CheckResponse state */
                state?: (string|null);

                /** CheckResponse replayed */
                replayed?: (boolean|null);

                /** CheckResponse policies */
                policies?: (sluice.v1.PolicyStatus.$Properties[]|null);

                /** CheckResponse descriptors */
                descriptors?: (sluice.v1.DescriptorStatus.$Properties[]|null);

                /** CheckResponse reason */
                reason?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CheckResponse. */
            type $Shape = sluice.v1.CheckResponse.$Properties;
        }

        /**
         * Properties of a CheckBatchRequest.
         * @deprecated Use sluice.v1.CheckBatchRequest.$Properties instead.
         */
        interface ICheckBatchRequest extends sluice.v1.CheckBatchRequest.$Properties {
        }

        /** Represents a CheckBatchRequest. */
        class CheckBatchRequest {

            /**
             * Constructs a new CheckBatchRequest.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.CheckBatchRequest.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CheckBatchRequest items. */
            items: sluice.v1.CheckRequest.$Properties[];

            /**
             * Creates a new CheckBatchRequest instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CheckBatchRequest instance
             */
            static create(properties: sluice.v1.CheckBatchRequest.$Shape): sluice.v1.CheckBatchRequest & sluice.v1.CheckBatchRequest.$Shape;
            static create(properties?: sluice.v1.CheckBatchRequest.$Properties): sluice.v1.CheckBatchRequest;

            /**
             * Encodes the specified CheckBatchRequest message. Does not implicitly {@link sluice.v1.CheckBatchRequest.verify|verify} messages.
             * @param message CheckBatchRequest message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.CheckBatchRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CheckBatchRequest message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchRequest & sluice.v1.CheckBatchRequest.$Shape} CheckBatchRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.CheckBatchRequest & sluice.v1.CheckBatchRequest.$Shape;
        }

        namespace CheckBatchRequest {

            /** Properties of a CheckBatchRequest. */
            interface $Properties {

                /** CheckBatchRequest items */
                items?: (sluice.v1.CheckRequest.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CheckBatchRequest. */
            type $Shape = sluice.v1.CheckBatchRequest.$Properties;
        }

        /**
         * Properties of an ItemError.
         * @deprecated Use sluice.v1.ItemError.$Properties instead.
         */
        interface IItemError extends sluice.v1.ItemError.$Properties {
        }

        /** Represents an ItemError. */
        class ItemError {

            /**
             * Constructs a new ItemError.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.ItemError.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** ItemError code. */
            code: number;

            /** ItemError message. */
            message: string;

            /**
             * Creates a new ItemError instance using the specified properties.
             * @param [properties] Properties to set
             * @returns ItemError instance
             */
            static create(properties: sluice.v1.ItemError.$Shape): sluice.v1.ItemError & sluice.v1.ItemError.$Shape;
            static create(properties?: sluice.v1.ItemError.$Properties): sluice.v1.ItemError;

            /**
             * Encodes the specified ItemError message. Does not implicitly {@link sluice.v1.ItemError.verify|verify} messages.
             * @param message ItemError message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.ItemError.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an ItemError message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.ItemError & sluice.v1.ItemError.$Shape} ItemError
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.ItemError & sluice.v1.ItemError.$Shape;
        }

        namespace ItemError {

            /** Properties of an ItemError. */
            interface $Properties {

                /** ItemError code */
                code?: (number|null);

                /** ItemError message */
                message?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an ItemError. */
            type $Shape = sluice.v1.ItemError.$Properties;
        }

        /**
         * Properties of a CheckBatchResult.
         * @deprecated Use sluice.v1.CheckBatchResult.$Properties instead.
         */
        interface ICheckBatchResult extends sluice.v1.CheckBatchResult.$Properties {
        }

        /** Represents a CheckBatchResult. */
        class CheckBatchResult {

            /**
             * Constructs a new CheckBatchResult.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.CheckBatchResult.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CheckBatchResult response. */
            response?: (sluice.v1.CheckResponse.$Properties|null);

            /** CheckBatchResult error. */
            error?: (sluice.v1.ItemError.$Properties|null);

            /** CheckBatchResult result. */
            result?: ("response"|"error");

            /**
             * Creates a new CheckBatchResult instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CheckBatchResult instance
             */
            static create(properties: sluice.v1.CheckBatchResult.$Shape): sluice.v1.CheckBatchResult & sluice.v1.CheckBatchResult.$Shape;
            static create(properties?: sluice.v1.CheckBatchResult.$Properties): sluice.v1.CheckBatchResult;

            /**
             * Encodes the specified CheckBatchResult message. Does not implicitly {@link sluice.v1.CheckBatchResult.verify|verify} messages.
             * @param message CheckBatchResult message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.CheckBatchResult.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CheckBatchResult message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchResult & sluice.v1.CheckBatchResult.$Shape} CheckBatchResult
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.CheckBatchResult & sluice.v1.CheckBatchResult.$Shape;
        }

        namespace CheckBatchResult {

            /** Properties of a CheckBatchResult. */
            interface $Properties {

                /** CheckBatchResult response */
                response?: (sluice.v1.CheckResponse.$Properties|null);

                /** CheckBatchResult error */
                error?: (sluice.v1.ItemError.$Properties|null);

                /** CheckBatchResult result */
                result?: ("response"|"error");

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Narrowed shape of a CheckBatchResult. */
            type $Shape = {
              response?: sluice.v1.CheckResponse.$Shape|null;
              error?: sluice.v1.ItemError.$Shape|null;
              $unknowns?: Uint8Array[];
            } & (
              ({ result?: undefined; response?: null; error?: null }|{ result?: "response"; response: sluice.v1.CheckResponse.$Shape; error?: null }|{ result?: "error"; response?: null; error: sluice.v1.ItemError.$Shape })
            );
        }

        /**
         * Properties of a CheckBatchResponse.
         * @deprecated Use sluice.v1.CheckBatchResponse.$Properties instead.
         */
        interface ICheckBatchResponse extends sluice.v1.CheckBatchResponse.$Properties {
        }

        /** Represents a CheckBatchResponse. */
        class CheckBatchResponse {

            /**
             * Constructs a new CheckBatchResponse.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.CheckBatchResponse.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CheckBatchResponse results. */
            results: sluice.v1.CheckBatchResult.$Properties[];

            /**
             * Creates a new CheckBatchResponse instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CheckBatchResponse instance
             */
            static create(properties: sluice.v1.CheckBatchResponse.$Shape): sluice.v1.CheckBatchResponse & sluice.v1.CheckBatchResponse.$Shape;
            static create(properties?: sluice.v1.CheckBatchResponse.$Properties): sluice.v1.CheckBatchResponse;

            /**
             * Encodes the specified CheckBatchResponse message. Does not implicitly {@link sluice.v1.CheckBatchResponse.verify|verify} messages.
             * @param message CheckBatchResponse message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.CheckBatchResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CheckBatchResponse message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchResponse & sluice.v1.CheckBatchResponse.$Shape} CheckBatchResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.CheckBatchResponse & sluice.v1.CheckBatchResponse.$Shape;
        }

        namespace CheckBatchResponse {

            /** Properties of a CheckBatchResponse. */
            interface $Properties {

                /** CheckBatchResponse results */
                results?: (sluice.v1.CheckBatchResult.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CheckBatchResponse. */
            type $Shape = {
              results?: sluice.v1.CheckBatchResult.$Shape[]|null;
              $unknowns?: Uint8Array[];
            };
        }

        /**
         * Properties of a QuotaRequest.
         * @deprecated Use sluice.v1.QuotaRequest.$Properties instead.
         */
        interface IQuotaRequest extends sluice.v1.QuotaRequest.$Properties {
        }

        /** Represents a QuotaRequest. */
        class QuotaRequest {

            /**
             * Constructs a new QuotaRequest.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.QuotaRequest.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** QuotaRequest identifier. */
            identifier: string;

            /** QuotaRequest dimension. */
            dimension: string;

            /** QuotaRequest endpoint. */
            endpoint: string;

            /** QuotaRequest timestamp. */
            timestamp?: (number|Long|null);

            /** QuotaRequest domain. */
            domain: string;

            /** QuotaRequest descriptors. */
            descriptors: sluice.v1.Descriptor.$Properties[];

            /**
             * Creates a new QuotaRequest instance using the specified properties.
             * @param [properties] Properties to set
             * @returns QuotaRequest instance
             */
            static create(properties: sluice.v1.QuotaRequest.$Shape): sluice.v1.QuotaRequest & sluice.v1.QuotaRequest.$Shape;
            static create(properties?: sluice.v1.QuotaRequest.$Properties): sluice.v1.QuotaRequest;

            /**
             * Encodes the specified QuotaRequest message. Does not implicitly {@link sluice.v1.QuotaRequest.verify|verify} messages.
             * @param message QuotaRequest message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.QuotaRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a QuotaRequest message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.QuotaRequest & sluice.v1.QuotaRequest.$Shape} QuotaRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.QuotaRequest & sluice.v1.QuotaRequest.$Shape;
        }

        namespace QuotaRequest {

            /** Properties of a QuotaRequest. */
            interface $Properties {

                /** QuotaRequest identifier */
                identifier?: (string|null);

                /** QuotaRequest dimension */
                dimension?: (string|null);

                /** QuotaRequest endpoint */
                endpoint?: (string|null);

                /** QuotaRequest timestamp */
                timestamp?: (number|Long|null);

                /** QuotaRequest domain */
                domain?: (string|null);

                /** QuotaRequest descriptors */
                descriptors?: (sluice.v1.Descriptor.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a QuotaRequest. */
            type $Shape = sluice.v1.QuotaRequest.$Properties;
        }

        /**
         * Properties of a QuotaResponse.
         * @deprecated Use sluice.v1.QuotaResponse.$Properties instead.
         */
        interface IQuotaResponse extends sluice.v1.QuotaResponse.$Properties {
        }

        /** Represents a QuotaResponse. */
        class QuotaResponse {

            /**
             * Constructs a new QuotaResponse.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.QuotaResponse.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** QuotaResponse allowed. */
            allowed: boolean;

            /** QuotaResponse current_count. */
            current_count: number;

            /** QuotaResponse limit. */
            limit: number;

            /** QuotaResponse remaining. */
            remaining: number;

            /** QuotaResponse reset_at. */
            reset_at: (number|Long);

            /** QuotaResponse retry_after. */
            retry_after: (number|Long);

            /** QuotaResponse reset_at_ms. */
            reset_at_ms: (number|Long);

            /** QuotaResponse retry_after_ms. */
            retry_after_ms: (number|Long);

            /** QuotaResponse delay_ms. */
            delay_ms: (number|Long);

            /** QuotaResponse state. */
            state: string;

            /** QuotaResponse replayed. */
            replayed: boolean;

            /** QuotaResponse policies. */
            policies: sluice.v1.PolicyStatus.$Properties[];

            /** QuotaResponse descriptors. */
            descriptors: sluice.v1.DescriptorStatus.$Properties[];

            /** QuotaResponse reason. */
            reason: string;

            /**
             * Creates a new QuotaResponse instance using the specified properties.
             * @param [properties] Properties to set
             * @returns QuotaResponse instance
             */
            static create(properties: sluice.v1.QuotaResponse.$Shape): sluice.v1.QuotaResponse & sluice.v1.QuotaResponse.$Shape;
            static create(properties?: sluice.v1.QuotaResponse.$Properties): sluice.v1.QuotaResponse;

            /**
             * Encodes the specified QuotaResponse message. Does not implicitly {@link sluice.v1.QuotaResponse.verify|verify} messages.
             * @param message QuotaResponse message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.QuotaResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a QuotaResponse message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.QuotaResponse & sluice.v1.QuotaResponse.$Shape} QuotaResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.QuotaResponse & sluice.v1.QuotaResponse.$Shape;
        }

        namespace QuotaResponse {

            /** Properties of a QuotaResponse. */
            interface $Properties {

                /** QuotaResponse allowed */
                allowed?: (boolean|null);

                /** QuotaResponse current_count */
                current_count?: (number|null);

                /** QuotaResponse limit */
                limit?: (number|null);

                /** QuotaResponse remaining */
                remaining?: (number|null);

                /** QuotaResponse reset_at */
                reset_at?: (number|Long|null);

                /** QuotaResponse retry_after */
                retry_after?: (number|Long|null);

                /** QuotaResponse reset_at_ms */
                reset_at_ms?: (number|Long|null);

                /** QuotaResponse retry_after_ms */
                retry_after_ms?: (number|Long|null);

                /** QuotaResponse delay_ms */
                delay_ms?: (number|Long|null);

                /** QuotaResponse state */
                state?: (string|null);

                /** QuotaResponse replayed */
                replayed?: (boolean|null);

                /** QuotaResponse policies */
                policies?: (sluice.v1.PolicyStatus.$Properties[]|null);

                /** QuotaResponse descriptors */
                descriptors?: (sluice.v1.DescriptorStatus.$Properties[]|null);

                /** QuotaResponse reason */
                reason?: (string|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a QuotaResponse. */
            type $Shape = sluice.v1.QuotaResponse.$Properties;
        }

        /**
         * Properties of a ResetRequest.
         * @deprecated Use sluice.v1.ResetRequest.$Properties instead.
         */
        interface IResetRequest extends sluice.v1.ResetRequest.$Properties {
        }

        /** Represents a ResetRequest. */
        class ResetRequest {

            /**
             * Constructs a new ResetRequest.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.ResetRequest.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** ResetRequest identifier. */
            identifier: string;

            /** ResetRequest dimension. */
            dimension: string;

            /** ResetRequest endpoint. */
            endpoint: string;

            /** ResetRequest domain. */
            domain: string;

            /** ResetRequest descriptors. */
            descriptors: sluice.v1.Descriptor.$Properties[];

            /**
             * Creates a new ResetRequest instance using the specified properties.
             * @param [properties] Properties to set
             * @returns ResetRequest instance
             */
            static create(properties: sluice.v1.ResetRequest.$Shape): sluice.v1.ResetRequest & sluice.v1.ResetRequest.$Shape;
            static create(properties?: sluice.v1.ResetRequest.$Properties): sluice.v1.ResetRequest;

            /**
             * Encodes the specified ResetRequest message. Does not implicitly {@link sluice.v1.ResetRequest.verify|verify} messages.
             * @param message ResetRequest message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.ResetRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a ResetRequest message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.ResetRequest & sluice.v1.ResetRequest.$Shape} ResetRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.ResetRequest & sluice.v1.ResetRequest.$Shape;
        }

        namespace ResetRequest {

            /** Properties of a ResetRequest. */
            interface $Properties {

                /** ResetRequest identifier */
                identifier?: (string|null);

                /** ResetRequest dimension */
                dimension?: (string|null);

                /** ResetRequest endpoint */
                endpoint?: (string|null);

                /** ResetRequest domain */
                domain?: (string|null);

                /** ResetRequest descriptors */
                descriptors?: (sluice.v1.Descriptor.$Properties[]|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a ResetRequest. */
            type $Shape = sluice.v1.ResetRequest.$Properties;
        }

        /**
         * Properties of a ResetResponse.
         * @deprecated Use sluice.v1.ResetResponse.$Properties instead.
         */
        interface IResetResponse extends sluice.v1.ResetResponse.$Properties {
        }

        /** Represents a ResetResponse. */
        class ResetResponse {

            /**
             * Constructs a new ResetResponse.
             * @param [properties] Properties to set
             */
            constructor(properties?: sluice.v1.ResetResponse.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** ResetResponse counters. */
            counters: number;

            /**
             * Creates a new ResetResponse instance using the specified properties.
             * @param [properties] Properties to set
             * @returns ResetResponse instance
             */
            static create(properties: sluice.v1.ResetResponse.$Shape): sluice.v1.ResetResponse & sluice.v1.ResetResponse.$Shape;
            static create(properties?: sluice.v1.ResetResponse.$Properties): sluice.v1.ResetResponse;

            /**
             * Encodes the specified ResetResponse message. Does not implicitly {@link sluice.v1.ResetResponse.verify|verify} messages.
             * @param message ResetResponse message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: sluice.v1.ResetResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a ResetResponse message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {sluice.v1.ResetResponse & sluice.v1.ResetResponse.$Shape} ResetResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): sluice.v1.ResetResponse & sluice.v1.ResetResponse.$Shape;
        }

        namespace ResetResponse {

            /** Properties of a ResetResponse. */
            interface $Properties {

                /** ResetResponse counters */
                counters?: (number|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a ResetResponse. */
            type $Shape = sluice.v1.ResetResponse.$Properties;
        }
    }
}

/** Namespace grpc. */
export namespace grpc {

    /** Namespace health. */
    namespace health {

        /** Namespace v1. */
        namespace v1 {

            /**
             * Properties of a HealthCheckRequest.
             * @deprecated Use grpc.health.v1.HealthCheckRequest.$Properties instead.
             */
            interface IHealthCheckRequest extends grpc.health.v1.HealthCheckRequest.$Properties {
            }

            /** Represents a HealthCheckRequest. */
            class HealthCheckRequest {

                /**
                 * Constructs a new HealthCheckRequest.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: grpc.health.v1.HealthCheckRequest.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** HealthCheckRequest service. */
                service: string;

                /**
                 * Creates a new HealthCheckRequest instance using the specified properties.
                 * @param [properties] Properties to set
                 * @returns HealthCheckRequest instance
                 */
                static create(properties: grpc.health.v1.HealthCheckRequest.$Shape): grpc.health.v1.HealthCheckRequest & grpc.health.v1.HealthCheckRequest.$Shape;
                static create(properties?: grpc.health.v1.HealthCheckRequest.$Properties): grpc.health.v1.HealthCheckRequest;

                /**
                 * Encodes the specified HealthCheckRequest message. Does not implicitly {@link grpc.health.v1.HealthCheckRequest.verify|verify} messages.
                 * @param message HealthCheckRequest message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: grpc.health.v1.HealthCheckRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a HealthCheckRequest message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {grpc.health.v1.HealthCheckRequest & grpc.health.v1.HealthCheckRequest.$Shape} HealthCheckRequest
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): grpc.health.v1.HealthCheckRequest & grpc.health.v1.HealthCheckRequest.$Shape;
            }

            namespace HealthCheckRequest {

                /** Properties of a HealthCheckRequest. */
                interface $Properties {

                    /** HealthCheckRequest service */
                    service?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a HealthCheckRequest. */
                type $Shape = grpc.health.v1.HealthCheckRequest.$Properties;
            }

            /**
             * Properties of a HealthCheckResponse.
             * @deprecated Use grpc.health.v1.HealthCheckResponse.$Properties instead.
             */
            interface IHealthCheckResponse extends grpc.health.v1.HealthCheckResponse.$Properties {
            }

            /** Represents a HealthCheckResponse. */
            class HealthCheckResponse {

                /**
                 * Constructs a new HealthCheckResponse.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: grpc.health.v1.HealthCheckResponse.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** HealthCheckResponse status. */
                status: grpc.health.v1.HealthCheckResponse.ServingStatus;

                /**
                 * Creates a new HealthCheckResponse instance using the specified properties.
                 * @param [properties] Properties to set
                 * @returns HealthCheckResponse instance
                 */
                static create(properties: grpc.health.v1.HealthCheckResponse.$Shape): grpc.health.v1.HealthCheckResponse & grpc.health.v1.HealthCheckResponse.$Shape;
                static create(properties?: grpc.health.v1.HealthCheckResponse.$Properties): grpc.health.v1.HealthCheckResponse;

                /**
                 * Encodes the specified HealthCheckResponse message. Does not implicitly {@link grpc.health.v1.HealthCheckResponse.verify|verify} messages.
                 * @param message HealthCheckResponse message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: grpc.health.v1.HealthCheckResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a HealthCheckResponse message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {grpc.health.v1.HealthCheckResponse & grpc.health.v1.HealthCheckResponse.$Shape} HealthCheckResponse
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): grpc.health.v1.HealthCheckResponse & grpc.health.v1.HealthCheckResponse.$Shape;
            }

            namespace HealthCheckResponse {

                /** Properties of a HealthCheckResponse. */
                interface $Properties {

                    /** HealthCheckResponse status */
                    status?: (grpc.health.v1.HealthCheckResponse.ServingStatus|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a HealthCheckResponse. */
                type $Shape = grpc.health.v1.HealthCheckResponse.$Properties;

                /** ServingStatus enum. */
                enum ServingStatus {

                    /** UNKNOWN value */
                    UNKNOWN = 0,

                    /** SERVING value */
                    SERVING = 1,

                    /** NOT_SERVING value */
                    NOT_SERVING = 2,

                    /** SERVICE_UNKNOWN value */
                    SERVICE_UNKNOWN = 3
                }
            }
        }
    }
}
