/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
const $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError;

// Exported root namespace
const $root = $protobuf.roots["sluice"] || ($protobuf.roots["sluice"] = {});

export const envoy = $root.envoy = (() => {

    /**
     * Namespace envoy.
     * @exports envoy
     * @namespace
     */
    const envoy = {};

    envoy.service = (function() {

        /**
         * Namespace service.
         * @memberof envoy
         * @namespace
         */
        const service = {};

        service.ratelimit = (function() {

            /**
             * Namespace ratelimit.
             * @memberof envoy.service
             * @namespace
             */
            const ratelimit = {};

            ratelimit.v3 = (function() {

                /**
                 * Namespace v3.
                 * @memberof envoy.service.ratelimit
                 * @namespace
                 */
                const v3 = {};

                v3.RateLimitRequest = (function() {

                    /**
                     * Properties of a RateLimitRequest.
                     * @typedef {Object} envoy.service.ratelimit.v3.RateLimitRequest.$Properties
                     * @property {string|null} [domain] RateLimitRequest domain
                     * @property {Array.<envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties>|null} [descriptors] RateLimitRequest descriptors
                     * @property {number|null} [hits_addend] RateLimitRequest hits_addend
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */

                    /**
                     * Properties of a RateLimitRequest.
                     * @memberof envoy.service.ratelimit.v3
                     * @interface IRateLimitRequest
                     * @augments envoy.service.ratelimit.v3.RateLimitRequest.$Properties
                     * @deprecated Use envoy.service.ratelimit.v3.RateLimitRequest.$Properties instead.
                     */

                    /**
                     * Shape of a RateLimitRequest.
                     * @typedef {envoy.service.ratelimit.v3.RateLimitRequest.$Properties} envoy.service.ratelimit.v3.RateLimitRequest.$Shape
                     */

                    /**
                     * Constructs a new RateLimitRequest.
                     * @memberof envoy.service.ratelimit.v3
                     * @classdesc Represents a RateLimitRequest.
                     * @constructor
                     * @param {envoy.service.ratelimit.v3.RateLimitRequest.$Properties=} [properties] Properties to set
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */
                    const RateLimitRequest = function (properties) {
                        this.descriptors = [];
                        if (properties)
                            for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                    this[keys[i]] = properties[keys[i]];
                    };

                    /**
                     * RateLimitRequest domain.
                     * @member {string} domain
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @instance
                     */
                    RateLimitRequest.prototype.domain = "";

                    /**
                     * RateLimitRequest descriptors.
                     * @member {Array.<envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties>} descriptors
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @instance
                     */
                    RateLimitRequest.prototype.descriptors = $util.emptyArray;

                    /**
                     * RateLimitRequest hits_addend.
                     * @member {number} hits_addend
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @instance
                     */
                    RateLimitRequest.prototype.hits_addend = 0;

                    /**
                     * Creates a new RateLimitRequest instance using the specified properties.
                     * @function create
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @static
                     * @param {envoy.service.ratelimit.v3.RateLimitRequest.$Properties=} [properties] Properties to set
                     * @returns {envoy.service.ratelimit.v3.RateLimitRequest} RateLimitRequest instance
                     * @type {{
                     *   (properties: envoy.service.ratelimit.v3.RateLimitRequest.$Shape): envoy.service.ratelimit.v3.RateLimitRequest & envoy.service.ratelimit.v3.RateLimitRequest.$Shape;
                     *   (properties?: envoy.service.ratelimit.v3.RateLimitRequest.$Properties): envoy.service.ratelimit.v3.RateLimitRequest;
                     * }}
                     */
                    RateLimitRequest.create = function(properties) {
                        return new RateLimitRequest(properties);
                    };

                    /**
                     * Encodes the specified RateLimitRequest message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitRequest.verify|verify} messages.
                     * @function encode
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @static
                     * @param {envoy.service.ratelimit.v3.RateLimitRequest.$Properties} message RateLimitRequest message or plain object to encode
                     * @param {$protobuf.Writer} [writer] Writer to encode to
                     * @returns {$protobuf.Writer} Writer
                     */
                    RateLimitRequest.encode = function (message, writer, _depth) {
                        if (!writer)
                            writer = $Writer.create();
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $util.recursionLimit)
                            throw $Error("max depth exceeded");
                        if (message.domain != null && $Object.hasOwnProperty.call(message, "domain") && message.domain !== "")
                            writer.uint32(/* id 1, wireType 2 =*/10).string(message.domain);
                        if (message.descriptors != null && message.descriptors.length)
                            for (let i = 0; i < message.descriptors.length; ++i)
                                $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.encode(message.descriptors[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                        if (message.hits_addend != null && $Object.hasOwnProperty.call(message, "hits_addend") && message.hits_addend !== 0)
                            writer.uint32(/* id 3, wireType 0 =*/24).uint32(message.hits_addend);
                        if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                            for (let i = 0; i < message.$unknowns.length; ++i)
                                writer.raw(message.$unknowns[i]);
                        return writer;
                    };

                    /**
                     * Decodes a RateLimitRequest message from the specified reader or buffer.
                     * @function decode
                     * @memberof envoy.service.ratelimit.v3.RateLimitRequest
                     * @static
                     * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                     * @param {number} [length] Message length if known beforehand
                     * @returns {envoy.service.ratelimit.v3.RateLimitRequest & envoy.service.ratelimit.v3.RateLimitRequest.$Shape} RateLimitRequest
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    RateLimitRequest.decode = function (reader, length, _end, _depth, _target) {
                        if (!(reader instanceof $Reader))
                            reader = $Reader.create(reader);
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $Reader.recursionLimit)
                            throw $Error("max depth exceeded");
                        let end, message, value;
                        if (length === $undefined)
                            end = reader.len;
                        else {
                            end = reader.pos + length;
                            if (end > reader.len)
                                throw $RangeError("index out of range");
                            length = reader.len;
                            reader.len = end;
                        }
                        message = _target || new $root.envoy.service.ratelimit.v3.RateLimitRequest();
                        while (reader.pos < end) {
                            let start = reader.pos;
                            let tag = reader.tag();
                            if (tag === _end) {
                                _end = $undefined;
                                break;
                            }
                            let wireType = tag & 7;
                            switch (tag >>>= 3) {
                            case 1: {
                                    if (wireType !== 2)
                                        break;
                                    if ((value = reader.stringVerify()).length)
                                        message.domain = value;
                                    else
                                        delete message.domain;
                                    continue;
                                }
                            case 2: {
                                    if (wireType !== 2)
                                        break;
                                    if (!(message.descriptors && message.descriptors.length))
                                        message.descriptors = [];
                                    message.descriptors.push($root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.decode(reader, reader.size(), $undefined, _depth + 1));
                                    continue;
                                }
                            case 3: {
                                    if (wireType !== 0)
                                        break;
                                    if (value = reader.uint32())
                                        message.hits_addend = value;
                                    else
                                        delete message.hits_addend;
                                    continue;
                                }
                            }
                            reader.skipType(wireType, _depth, tag);
                            if (!reader.discardUnknown) {
                                $util.makeProp(message, "$unknowns", false);
                                (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                            }
                        }
                        if (length !== $undefined) {
                            if (reader.pos !== end)
                                throw $RangeError("index out of range");
                            reader.len = length;
                        }
                        if (_end !== $undefined)
                            throw $Error("missing end group");
                        return message;
                    };

                    return RateLimitRequest;
                })();

                v3.RateLimitResponse = (function() {

                    /**
                     * Properties of a RateLimitResponse.
                     * @typedef {Object} envoy.service.ratelimit.v3.RateLimitResponse.$Properties
                     * @property {envoy.service.ratelimit.v3.RateLimitResponse.Code|null} [overall_code] RateLimitResponse overall_code
                     * @property {Array.<envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties>|null} [statuses] RateLimitResponse statuses
                     * @property {Array.<envoy.config.core.v3.HeaderValue.$Properties>|null} [response_headers_to_add] RateLimitResponse response_headers_to_add
                     * @property {Array.<envoy.config.core.v3.HeaderValue.$Properties>|null} [request_headers_to_add] RateLimitResponse request_headers_to_add
                     * @property {Uint8Array|null} [raw_body] RateLimitResponse raw_body
                     * @property {google.protobuf.Struct.$Properties|null} [dynamic_metadata] RateLimitResponse dynamic_metadata
                     * @property {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null} [quota] RateLimitResponse quota
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */

                    /**
                     * Properties of a RateLimitResponse.
                     * @memberof envoy.service.ratelimit.v3
                     * @interface IRateLimitResponse
                     * @augments envoy.service.ratelimit.v3.RateLimitResponse.$Properties
                     * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.$Properties instead.
                     */

                    /**
                     * Shape of a RateLimitResponse.
                     * @typedef {{
                     *   overall_code?: envoy.service.ratelimit.v3.RateLimitResponse.Code|null;
                     *   statuses?: Array.<envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape>|null;
                     *   response_headers_to_add?: Array.<envoy.config.core.v3.HeaderValue.$Shape>|null;
                     *   request_headers_to_add?: Array.<envoy.config.core.v3.HeaderValue.$Shape>|null;
                     *   raw_body?: Uint8Array|null;
                     *   dynamic_metadata?: google.protobuf.Struct.$Shape|null;
                     *   quota?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape|null;
                     *   $unknowns?: Array.<Uint8Array>;
                     * }} envoy.service.ratelimit.v3.RateLimitResponse.$Shape
                     */

                    /**
                     * Constructs a new RateLimitResponse.
                     * @memberof envoy.service.ratelimit.v3
                     * @classdesc Represents a RateLimitResponse.
                     * @constructor
                     * @param {envoy.service.ratelimit.v3.RateLimitResponse.$Properties=} [properties] Properties to set
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */
                    const RateLimitResponse = function (properties) {
                        this.statuses = [];
                        this.response_headers_to_add = [];
                        this.request_headers_to_add = [];
                        if (properties)
                            for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                    this[keys[i]] = properties[keys[i]];
                    };

                    /**
                     * RateLimitResponse overall_code.
                     * @member {envoy.service.ratelimit.v3.RateLimitResponse.Code} overall_code
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.overall_code = 0;

                    /**
                     * RateLimitResponse statuses.
                     * @member {Array.<envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties>} statuses
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.statuses = $util.emptyArray;

                    /**
                     * RateLimitResponse response_headers_to_add.
                     * @member {Array.<envoy.config.core.v3.HeaderValue.$Properties>} response_headers_to_add
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.response_headers_to_add = $util.emptyArray;

                    /**
                     * RateLimitResponse request_headers_to_add.
                     * @member {Array.<envoy.config.core.v3.HeaderValue.$Properties>} request_headers_to_add
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.request_headers_to_add = $util.emptyArray;

                    /**
                     * RateLimitResponse raw_body.
                     * @member {Uint8Array} raw_body
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.raw_body = $util.newBuffer([]);

                    /**
                     * RateLimitResponse dynamic_metadata.
                     * @member {google.protobuf.Struct.$Properties|null|undefined} dynamic_metadata
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.dynamic_metadata = null;

                    /**
                     * RateLimitResponse quota.
                     * @member {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null|undefined} quota
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @instance
                     */
                    RateLimitResponse.prototype.quota = null;

                    /**
                     * Creates a new RateLimitResponse instance using the specified properties.
                     * @function create
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @static
                     * @param {envoy.service.ratelimit.v3.RateLimitResponse.$Properties=} [properties] Properties to set
                     * @returns {envoy.service.ratelimit.v3.RateLimitResponse} RateLimitResponse instance
                     * @type {{
                     *   (properties: envoy.service.ratelimit.v3.RateLimitResponse.$Shape): envoy.service.ratelimit.v3.RateLimitResponse & envoy.service.ratelimit.v3.RateLimitResponse.$Shape;
                     *   (properties?: envoy.service.ratelimit.v3.RateLimitResponse.$Properties): envoy.service.ratelimit.v3.RateLimitResponse;
                     * }}
                     */
                    RateLimitResponse.create = function(properties) {
                        return new RateLimitResponse(properties);
                    };

                    /**
                     * Encodes the specified RateLimitResponse message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.verify|verify} messages.
                     * @function encode
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @static
                     * @param {envoy.service.ratelimit.v3.RateLimitResponse.$Properties} message RateLimitResponse message or plain object to encode
                     * @param {$protobuf.Writer} [writer] Writer to encode to
                     * @returns {$protobuf.Writer} Writer
                     */
                    RateLimitResponse.encode = function (message, writer, _depth) {
                        if (!writer)
                            writer = $Writer.create();
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $util.recursionLimit)
                            throw $Error("max depth exceeded");
                        if (message.overall_code != null && $Object.hasOwnProperty.call(message, "overall_code") && message.overall_code !== 0)
                            writer.uint32(/* id 1, wireType 0 =*/8).int32(message.overall_code);
                        if (message.statuses != null && message.statuses.length)
                            for (let i = 0; i < message.statuses.length; ++i)
                                $root.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.encode(message.statuses[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                        if (message.response_headers_to_add != null && message.response_headers_to_add.length)
                            for (let i = 0; i < message.response_headers_to_add.length; ++i)
                                $root.envoy.config.core.v3.HeaderValue.encode(message.response_headers_to_add[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                        if (message.request_headers_to_add != null && message.request_headers_to_add.length)
                            for (let i = 0; i < message.request_headers_to_add.length; ++i)
                                $root.envoy.config.core.v3.HeaderValue.encode(message.request_headers_to_add[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                        if (message.raw_body != null && $Object.hasOwnProperty.call(message, "raw_body") && message.raw_body.length)
                            writer.uint32(/* id 5, wireType 2 =*/42).bytes(message.raw_body);
                        if (message.dynamic_metadata != null && $Object.hasOwnProperty.call(message, "dynamic_metadata"))
                            $root.google.protobuf.Struct.encode(message.dynamic_metadata, writer.uint32(/* id 6, wireType 2 =*/50).fork(), _depth + 1).ldelim();
                        if (message.quota != null && $Object.hasOwnProperty.call(message, "quota"))
                            $root.envoy.service.ratelimit.v3.RateLimitResponse.Quota.encode(message.quota, writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                        if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                            for (let i = 0; i < message.$unknowns.length; ++i)
                                writer.raw(message.$unknowns[i]);
                        return writer;
                    };

                    /**
                     * Decodes a RateLimitResponse message from the specified reader or buffer.
                     * @function decode
                     * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                     * @static
                     * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                     * @param {number} [length] Message length if known beforehand
                     * @returns {envoy.service.ratelimit.v3.RateLimitResponse & envoy.service.ratelimit.v3.RateLimitResponse.$Shape} RateLimitResponse
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    RateLimitResponse.decode = function (reader, length, _end, _depth, _target) {
                        if (!(reader instanceof $Reader))
                            reader = $Reader.create(reader);
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $Reader.recursionLimit)
                            throw $Error("max depth exceeded");
                        let end, message, value;
                        if (length === $undefined)
                            end = reader.len;
                        else {
                            end = reader.pos + length;
                            if (end > reader.len)
                                throw $RangeError("index out of range");
                            length = reader.len;
                            reader.len = end;
                        }
                        message = _target || new $root.envoy.service.ratelimit.v3.RateLimitResponse();
                        while (reader.pos < end) {
                            let start = reader.pos;
                            let tag = reader.tag();
                            if (tag === _end) {
                                _end = $undefined;
                                break;
                            }
                            let wireType = tag & 7;
                            switch (tag >>>= 3) {
                            case 1: {
                                    if (wireType !== 0)
                                        break;
                                    if (value = reader.int32())
                                        message.overall_code = value;
                                    else
                                        delete message.overall_code;
                                    continue;
                                }
                            case 2: {
                                    if (wireType !== 2)
                                        break;
                                    if (!(message.statuses && message.statuses.length))
                                        message.statuses = [];
                                    message.statuses.push($root.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                                    continue;
                                }
                            case 3: {
                                    if (wireType !== 2)
                                        break;
                                    if (!(message.response_headers_to_add && message.response_headers_to_add.length))
                                        message.response_headers_to_add = [];
                                    message.response_headers_to_add.push($root.envoy.config.core.v3.HeaderValue.decode(reader, reader.size(), $undefined, _depth + 1));
                                    continue;
                                }
                            case 4: {
                                    if (wireType !== 2)
                                        break;
                                    if (!(message.request_headers_to_add && message.request_headers_to_add.length))
                                        message.request_headers_to_add = [];
                                    message.request_headers_to_add.push($root.envoy.config.core.v3.HeaderValue.decode(reader, reader.size(), $undefined, _depth + 1));
                                    continue;
                                }
                            case 5: {
                                    if (wireType !== 2)
                                        break;
                                    if ((value = reader.bytes()).length)
                                        message.raw_body = value;
                                    else
                                        delete message.raw_body;
                                    continue;
                                }
                            case 6: {
                                    if (wireType !== 2)
                                        break;
                                    message.dynamic_metadata = $root.google.protobuf.Struct.decode(reader, reader.size(), $undefined, _depth + 1, message.dynamic_metadata);
                                    continue;
                                }
                            case 7: {
                                    if (wireType !== 2)
                                        break;
                                    message.quota = $root.envoy.service.ratelimit.v3.RateLimitResponse.Quota.decode(reader, reader.size(), $undefined, _depth + 1, message.quota);
                                    continue;
                                }
                            }
                            reader.skipType(wireType, _depth, tag);
                            if (!reader.discardUnknown) {
                                $util.makeProp(message, "$unknowns", false);
                                (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                            }
                        }
                        if (length !== $undefined) {
                            if (reader.pos !== end)
                                throw $RangeError("index out of range");
                            reader.len = length;
                        }
                        if (_end !== $undefined)
                            throw $Error("missing end group");
                        return message;
                    };

                    /**
                     * Code enum.
                     * @name envoy.service.ratelimit.v3.RateLimitResponse.Code
                     * @enum {number}
                     * @property {number} UNKNOWN=0 UNKNOWN value
                     * @property {number} OK=1 OK value
                     * @property {number} OVER_LIMIT=2 OVER_LIMIT value
                     */
                    RateLimitResponse.Code = (function() {
                        const valuesById = $Object.create(null), values = $Object.create(valuesById);
                        values[valuesById[0] = "UNKNOWN"] = 0;
                        values[valuesById[1] = "OK"] = 1;
                        values[valuesById[2] = "OVER_LIMIT"] = 2;
                        return values;
                    })();

                    RateLimitResponse.RateLimit = (function() {

                        /**
                         * Properties of a RateLimit.
                         * @typedef {Object} envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties
                         * @property {string|null} [name] RateLimit name
                         * @property {number|null} [requests_per_unit] RateLimit requests_per_unit
                         * @property {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit|null} [unit] RateLimit unit
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */

                        /**
                         * Properties of a RateLimit.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @interface IRateLimit
                         * @augments envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties
                         * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties instead.
                         */

                        /**
                         * Shape of a RateLimit.
                         * @typedef {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties} envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape
                         */

                        /**
                         * Constructs a new RateLimit.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @classdesc Represents a RateLimit.
                         * @constructor
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties=} [properties] Properties to set
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */
                        const RateLimit = function (properties) {
                            if (properties)
                                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                        this[keys[i]] = properties[keys[i]];
                        };

                        /**
                         * RateLimit name.
                         * @member {string} name
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @instance
                         */
                        RateLimit.prototype.name = "";

                        /**
                         * RateLimit requests_per_unit.
                         * @member {number} requests_per_unit
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @instance
                         */
                        RateLimit.prototype.requests_per_unit = 0;

                        /**
                         * RateLimit unit.
                         * @member {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit} unit
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @instance
                         */
                        RateLimit.prototype.unit = 0;

                        /**
                         * Creates a new RateLimit instance using the specified properties.
                         * @function create
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties=} [properties] Properties to set
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit} RateLimit instance
                         * @type {{
                         *   (properties: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.RateLimit & envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape;
                         *   (properties?: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.RateLimit;
                         * }}
                         */
                        RateLimit.create = function(properties) {
                            return new RateLimit(properties);
                        };

                        /**
                         * Encodes the specified RateLimit message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.verify|verify} messages.
                         * @function encode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties} message RateLimit message or plain object to encode
                         * @param {$protobuf.Writer} [writer] Writer to encode to
                         * @returns {$protobuf.Writer} Writer
                         */
                        RateLimit.encode = function (message, writer, _depth) {
                            if (!writer)
                                writer = $Writer.create();
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $util.recursionLimit)
                                throw $Error("max depth exceeded");
                            if (message.requests_per_unit != null && $Object.hasOwnProperty.call(message, "requests_per_unit") && message.requests_per_unit !== 0)
                                writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.requests_per_unit);
                            if (message.unit != null && $Object.hasOwnProperty.call(message, "unit") && message.unit !== 0)
                                writer.uint32(/* id 2, wireType 0 =*/16).int32(message.unit);
                            if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                                writer.uint32(/* id 3, wireType 2 =*/26).string(message.name);
                            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                for (let i = 0; i < message.$unknowns.length; ++i)
                                    writer.raw(message.$unknowns[i]);
                            return writer;
                        };

                        /**
                         * Decodes a RateLimit message from the specified reader or buffer.
                         * @function decode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.RateLimit
                         * @static
                         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                         * @param {number} [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit & envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape} RateLimit
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        RateLimit.decode = function (reader, length, _end, _depth, _target) {
                            if (!(reader instanceof $Reader))
                                reader = $Reader.create(reader);
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $Reader.recursionLimit)
                                throw $Error("max depth exceeded");
                            let end, message, value;
                            if (length === $undefined)
                                end = reader.len;
                            else {
                                end = reader.pos + length;
                                if (end > reader.len)
                                    throw $RangeError("index out of range");
                                length = reader.len;
                                reader.len = end;
                            }
                            message = _target || new $root.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit();
                            while (reader.pos < end) {
                                let start = reader.pos;
                                let tag = reader.tag();
                                if (tag === _end) {
                                    _end = $undefined;
                                    break;
                                }
                                let wireType = tag & 7;
                                switch (tag >>>= 3) {
                                case 3: {
                                        if (wireType !== 2)
                                            break;
                                        if ((value = reader.stringVerify()).length)
                                            message.name = value;
                                        else
                                            delete message.name;
                                        continue;
                                    }
                                case 1: {
                                        if (wireType !== 0)
                                            break;
                                        if (value = reader.uint32())
                                            message.requests_per_unit = value;
                                        else
                                            delete message.requests_per_unit;
                                        continue;
                                    }
                                case 2: {
                                        if (wireType !== 0)
                                            break;
                                        if (value = reader.int32())
                                            message.unit = value;
                                        else
                                            delete message.unit;
                                        continue;
                                    }
                                }
                                reader.skipType(wireType, _depth, tag);
                                if (!reader.discardUnknown) {
                                    $util.makeProp(message, "$unknowns", false);
                                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                }
                            }
                            if (length !== $undefined) {
                                if (reader.pos !== end)
                                    throw $RangeError("index out of range");
                                reader.len = length;
                            }
                            if (_end !== $undefined)
                                throw $Error("missing end group");
                            return message;
                        };

                        /**
                         * Unit enum.
                         * @name envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit
                         * @enum {number}
                         * @property {number} UNKNOWN=0 UNKNOWN value
                         * @property {number} SECOND=1 SECOND value
                         * @property {number} MINUTE=2 MINUTE value
                         * @property {number} HOUR=3 HOUR value
                         * @property {number} DAY=4 DAY value
                         * @property {number} WEEK=7 WEEK value
                         * @property {number} MONTH=5 MONTH value
                         * @property {number} YEAR=6 YEAR value
                         */
                        RateLimit.Unit = (function() {
                            const valuesById = $Object.create(null), values = $Object.create(valuesById);
                            values[valuesById[0] = "UNKNOWN"] = 0;
                            values[valuesById[1] = "SECOND"] = 1;
                            values[valuesById[2] = "MINUTE"] = 2;
                            values[valuesById[3] = "HOUR"] = 3;
                            values[valuesById[4] = "DAY"] = 4;
                            values[valuesById[7] = "WEEK"] = 7;
                            values[valuesById[5] = "MONTH"] = 5;
                            values[valuesById[6] = "YEAR"] = 6;
                            return values;
                        })();

                        return RateLimit;
                    })();

                    RateLimitResponse.Quota = (function() {

                        /**
                         * Properties of a Quota.
                         * @typedef {Object} envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties
                         * @property {number|null} [requests] Quota requests
                         * @property {google.protobuf.Timestamp.$Properties|null} [valid_until] Quota valid_until
                         * @property {string|null} [id] Quota id
                         * @property {"valid_until"} [expiration_specifier] Quota expiration_specifier
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */

                        /**
                         * Properties of a Quota.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @interface IQuota
                         * @augments envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties
                         * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties instead.
                         */

                        /**
                         * Narrowed shape of a Quota.
                         * @typedef {{
                         *   requests?: number|null;
                         *   valid_until?: google.protobuf.Timestamp.$Shape|null;
                         *   id?: string|null;
                         *   $unknowns?: Array.<Uint8Array>;
                         * } & (
                         *   ({ expiration_specifier?: undefined; valid_until?: null }|{ expiration_specifier?: "valid_until"; valid_until: google.protobuf.Timestamp.$Shape })
                         * )} envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape
                         */

                        /**
                         * Constructs a new Quota.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @classdesc Represents a Quota.
                         * @constructor
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties=} [properties] Properties to set
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */
                        const Quota = function (properties) {
                            if (properties)
                                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                        this[keys[i]] = properties[keys[i]];
                        };

                        /**
                         * Quota requests.
                         * @member {number} requests
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @instance
                         */
                        Quota.prototype.requests = 0;

                        /**
                         * Quota valid_until.
                         * @member {google.protobuf.Timestamp.$Properties|null|undefined} valid_until
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @instance
                         */
                        Quota.prototype.valid_until = null;

                        /**
                         * Quota id.
                         * @member {string} id
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @instance
                         */
                        Quota.prototype.id = "";

                        // OneOf field names bound to virtual getters and setters
                        let $oneOfFields;

                        /**
                         * Quota expiration_specifier.
                         * @member {"valid_until"|undefined} expiration_specifier
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @instance
                         */
                        $Object.defineProperty(Quota.prototype, "expiration_specifier", {
                            get: $util.oneOfGetter($oneOfFields = ["valid_until"]),
                            set: $util.oneOfSetter($oneOfFields)
                        });

                        /**
                         * Creates a new Quota instance using the specified properties.
                         * @function create
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties=} [properties] Properties to set
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.Quota} Quota instance
                         * @type {{
                         *   (properties: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.Quota & envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape;
                         *   (properties?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.Quota;
                         * }}
                         */
                        Quota.create = function(properties) {
                            return new Quota(properties);
                        };

                        /**
                         * Encodes the specified Quota message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.Quota.verify|verify} messages.
                         * @function encode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties} message Quota message or plain object to encode
                         * @param {$protobuf.Writer} [writer] Writer to encode to
                         * @returns {$protobuf.Writer} Writer
                         */
                        Quota.encode = function (message, writer, _depth) {
                            if (!writer)
                                writer = $Writer.create();
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $util.recursionLimit)
                                throw $Error("max depth exceeded");
                            if (message.requests != null && $Object.hasOwnProperty.call(message, "requests") && message.requests !== 0)
                                writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.requests);
                            if (message.valid_until != null && $Object.hasOwnProperty.call(message, "valid_until"))
                                $root.google.protobuf.Timestamp.encode(message.valid_until, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                            if (message.id != null && $Object.hasOwnProperty.call(message, "id") && message.id !== "")
                                writer.uint32(/* id 3, wireType 2 =*/26).string(message.id);
                            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                for (let i = 0; i < message.$unknowns.length; ++i)
                                    writer.raw(message.$unknowns[i]);
                            return writer;
                        };

                        /**
                         * Decodes a Quota message from the specified reader or buffer.
                         * @function decode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.Quota
                         * @static
                         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                         * @param {number} [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.Quota & envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape} Quota
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        Quota.decode = function (reader, length, _end, _depth, _target) {
                            if (!(reader instanceof $Reader))
                                reader = $Reader.create(reader);
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $Reader.recursionLimit)
                                throw $Error("max depth exceeded");
                            let end, message, value;
                            if (length === $undefined)
                                end = reader.len;
                            else {
                                end = reader.pos + length;
                                if (end > reader.len)
                                    throw $RangeError("index out of range");
                                length = reader.len;
                                reader.len = end;
                            }
                            message = _target || new $root.envoy.service.ratelimit.v3.RateLimitResponse.Quota();
                            while (reader.pos < end) {
                                let start = reader.pos;
                                let tag = reader.tag();
                                if (tag === _end) {
                                    _end = $undefined;
                                    break;
                                }
                                let wireType = tag & 7;
                                switch (tag >>>= 3) {
                                case 1: {
                                        if (wireType !== 0)
                                            break;
                                        if (value = reader.uint32())
                                            message.requests = value;
                                        else
                                            delete message.requests;
                                        continue;
                                    }
                                case 2: {
                                        if (wireType !== 2)
                                            break;
                                        message.valid_until = $root.google.protobuf.Timestamp.decode(reader, reader.size(), $undefined, _depth + 1, message.valid_until);
                                        message.expiration_specifier = "valid_until";
                                        continue;
                                    }
                                case 3: {
                                        if (wireType !== 2)
                                            break;
                                        if ((value = reader.stringVerify()).length)
                                            message.id = value;
                                        else
                                            delete message.id;
                                        continue;
                                    }
                                }
                                reader.skipType(wireType, _depth, tag);
                                if (!reader.discardUnknown) {
                                    $util.makeProp(message, "$unknowns", false);
                                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                }
                            }
                            if (length !== $undefined) {
                                if (reader.pos !== end)
                                    throw $RangeError("index out of range");
                                reader.len = length;
                            }
                            if (_end !== $undefined)
                                throw $Error("missing end group");
                            return message;
                        };

                        return Quota;
                    })();

                    RateLimitResponse.DescriptorStatus = (function() {

                        /**
                         * Properties of a DescriptorStatus.
                         * @typedef {Object} envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties
                         * @property {envoy.service.ratelimit.v3.RateLimitResponse.Code|null} [code] DescriptorStatus code
                         * @property {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties|null} [current_limit] DescriptorStatus current_limit
                         * @property {number|null} [limit_remaining] DescriptorStatus limit_remaining
                         * @property {google.protobuf.Duration.$Properties|null} [duration_until_reset] DescriptorStatus duration_until_reset
                         * @property {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null} [quota] DescriptorStatus quota
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */

                        /**
                         * Properties of a DescriptorStatus.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @interface IDescriptorStatus
                         * @augments envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties
                         * @deprecated Use envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties instead.
                         */

                        /**
                         * Shape of a DescriptorStatus.
                         * @typedef {{
                         *   code?: envoy.service.ratelimit.v3.RateLimitResponse.Code|null;
                         *   current_limit?: envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Shape|null;
                         *   limit_remaining?: number|null;
                         *   duration_until_reset?: google.protobuf.Duration.$Shape|null;
                         *   quota?: envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Shape|null;
                         *   $unknowns?: Array.<Uint8Array>;
                         * }} envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape
                         */

                        /**
                         * Constructs a new DescriptorStatus.
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse
                         * @classdesc Represents a DescriptorStatus.
                         * @constructor
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties=} [properties] Properties to set
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */
                        const DescriptorStatus = function (properties) {
                            if (properties)
                                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                        this[keys[i]] = properties[keys[i]];
                        };

                        /**
                         * DescriptorStatus code.
                         * @member {envoy.service.ratelimit.v3.RateLimitResponse.Code} code
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @instance
                         */
                        DescriptorStatus.prototype.code = 0;

                        /**
                         * DescriptorStatus current_limit.
                         * @member {envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties|null|undefined} current_limit
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @instance
                         */
                        DescriptorStatus.prototype.current_limit = null;

                        /**
                         * DescriptorStatus limit_remaining.
                         * @member {number} limit_remaining
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @instance
                         */
                        DescriptorStatus.prototype.limit_remaining = 0;

                        /**
                         * DescriptorStatus duration_until_reset.
                         * @member {google.protobuf.Duration.$Properties|null|undefined} duration_until_reset
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @instance
                         */
                        DescriptorStatus.prototype.duration_until_reset = null;

                        /**
                         * DescriptorStatus quota.
                         * @member {envoy.service.ratelimit.v3.RateLimitResponse.Quota.$Properties|null|undefined} quota
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @instance
                         */
                        DescriptorStatus.prototype.quota = null;

                        /**
                         * Creates a new DescriptorStatus instance using the specified properties.
                         * @function create
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties=} [properties] Properties to set
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus} DescriptorStatus instance
                         * @type {{
                         *   (properties: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape): envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus & envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape;
                         *   (properties?: envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties): envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
                         * }}
                         */
                        DescriptorStatus.create = function(properties) {
                            return new DescriptorStatus(properties);
                        };

                        /**
                         * Encodes the specified DescriptorStatus message. Does not implicitly {@link envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.verify|verify} messages.
                         * @function encode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @static
                         * @param {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties} message DescriptorStatus message or plain object to encode
                         * @param {$protobuf.Writer} [writer] Writer to encode to
                         * @returns {$protobuf.Writer} Writer
                         */
                        DescriptorStatus.encode = function (message, writer, _depth) {
                            if (!writer)
                                writer = $Writer.create();
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $util.recursionLimit)
                                throw $Error("max depth exceeded");
                            if (message.code != null && $Object.hasOwnProperty.call(message, "code") && message.code !== 0)
                                writer.uint32(/* id 1, wireType 0 =*/8).int32(message.code);
                            if (message.current_limit != null && $Object.hasOwnProperty.call(message, "current_limit"))
                                $root.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.encode(message.current_limit, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                            if (message.limit_remaining != null && $Object.hasOwnProperty.call(message, "limit_remaining") && message.limit_remaining !== 0)
                                writer.uint32(/* id 3, wireType 0 =*/24).uint32(message.limit_remaining);
                            if (message.duration_until_reset != null && $Object.hasOwnProperty.call(message, "duration_until_reset"))
                                $root.google.protobuf.Duration.encode(message.duration_until_reset, writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                            if (message.quota != null && $Object.hasOwnProperty.call(message, "quota"))
                                $root.envoy.service.ratelimit.v3.RateLimitResponse.Quota.encode(message.quota, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                for (let i = 0; i < message.$unknowns.length; ++i)
                                    writer.raw(message.$unknowns[i]);
                            return writer;
                        };

                        /**
                         * Decodes a DescriptorStatus message from the specified reader or buffer.
                         * @function decode
                         * @memberof envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus
                         * @static
                         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                         * @param {number} [length] Message length if known beforehand
                         * @returns {envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus & envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Shape} DescriptorStatus
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        DescriptorStatus.decode = function (reader, length, _end, _depth, _target) {
                            if (!(reader instanceof $Reader))
                                reader = $Reader.create(reader);
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $Reader.recursionLimit)
                                throw $Error("max depth exceeded");
                            let end, message, value;
                            if (length === $undefined)
                                end = reader.len;
                            else {
                                end = reader.pos + length;
                                if (end > reader.len)
                                    throw $RangeError("index out of range");
                                length = reader.len;
                                reader.len = end;
                            }
                            message = _target || new $root.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus();
                            while (reader.pos < end) {
                                let start = reader.pos;
                                let tag = reader.tag();
                                if (tag === _end) {
                                    _end = $undefined;
                                    break;
                                }
                                let wireType = tag & 7;
                                switch (tag >>>= 3) {
                                case 1: {
                                        if (wireType !== 0)
                                            break;
                                        if (value = reader.int32())
                                            message.code = value;
                                        else
                                            delete message.code;
                                        continue;
                                    }
                                case 2: {
                                        if (wireType !== 2)
                                            break;
                                        message.current_limit = $root.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.decode(reader, reader.size(), $undefined, _depth + 1, message.current_limit);
                                        continue;
                                    }
                                case 3: {
                                        if (wireType !== 0)
                                            break;
                                        if (value = reader.uint32())
                                            message.limit_remaining = value;
                                        else
                                            delete message.limit_remaining;
                                        continue;
                                    }
                                case 4: {
                                        if (wireType !== 2)
                                            break;
                                        message.duration_until_reset = $root.google.protobuf.Duration.decode(reader, reader.size(), $undefined, _depth + 1, message.duration_until_reset);
                                        continue;
                                    }
                                case 5: {
                                        if (wireType !== 2)
                                            break;
                                        message.quota = $root.envoy.service.ratelimit.v3.RateLimitResponse.Quota.decode(reader, reader.size(), $undefined, _depth + 1, message.quota);
                                        continue;
                                    }
                                }
                                reader.skipType(wireType, _depth, tag);
                                if (!reader.discardUnknown) {
                                    $util.makeProp(message, "$unknowns", false);
                                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                }
                            }
                            if (length !== $undefined) {
                                if (reader.pos !== end)
                                    throw $RangeError("index out of range");
                                reader.len = length;
                            }
                            if (_end !== $undefined)
                                throw $Error("missing end group");
                            return message;
                        };

                        return DescriptorStatus;
                    })();

                    return RateLimitResponse;
                })();

                return v3;
            })();

            return ratelimit;
        })();

        return service;
    })();

    envoy.config = (function() {

        /**
         * Namespace config.
         * @memberof envoy
         * @namespace
         */
        const config = {};

        config.core = (function() {

            /**
             * Namespace core.
             * @memberof envoy.config
             * @namespace
             */
            const core = {};

            core.v3 = (function() {

                /**
                 * Namespace v3.
                 * @memberof envoy.config.core
                 * @namespace
                 */
                const v3 = {};

                v3.HeaderValue = (function() {

                    /**
                     * Properties of a HeaderValue.
                     * @typedef {Object} envoy.config.core.v3.HeaderValue.$Properties
                     * @property {string|null} [key] HeaderValue key
                     * @property {string|null} [value] HeaderValue value
                     * @property {Uint8Array|null} [raw_value] HeaderValue raw_value
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */

                    /**
                     * Properties of a HeaderValue.
                     * @memberof envoy.config.core.v3
                     * @interface IHeaderValue
                     * @augments envoy.config.core.v3.HeaderValue.$Properties
                     * @deprecated Use envoy.config.core.v3.HeaderValue.$Properties instead.
                     */

                    /**
                     * Shape of a HeaderValue.
                     * @typedef {envoy.config.core.v3.HeaderValue.$Properties} envoy.config.core.v3.HeaderValue.$Shape
                     */

                    /**
                     * Constructs a new HeaderValue.
                     * @memberof envoy.config.core.v3
                     * @classdesc Represents a HeaderValue.
                     * @constructor
                     * @param {envoy.config.core.v3.HeaderValue.$Properties=} [properties] Properties to set
                     * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                     */
                    const HeaderValue = function (properties) {
                        if (properties)
                            for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                    this[keys[i]] = properties[keys[i]];
                    };

                    /**
                     * HeaderValue key.
                     * @member {string} key
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @instance
                     */
                    HeaderValue.prototype.key = "";

                    /**
                     * HeaderValue value.
                     * @member {string} value
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @instance
                     */
                    HeaderValue.prototype.value = "";

                    /**
                     * HeaderValue raw_value.
                     * @member {Uint8Array} raw_value
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @instance
                     */
                    HeaderValue.prototype.raw_value = $util.newBuffer([]);

                    /**
                     * Creates a new HeaderValue instance using the specified properties.
                     * @function create
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @static
                     * @param {envoy.config.core.v3.HeaderValue.$Properties=} [properties] Properties to set
                     * @returns {envoy.config.core.v3.HeaderValue} HeaderValue instance
                     * @type {{
                     *   (properties: envoy.config.core.v3.HeaderValue.$Shape): envoy.config.core.v3.HeaderValue & envoy.config.core.v3.HeaderValue.$Shape;
                     *   (properties?: envoy.config.core.v3.HeaderValue.$Properties): envoy.config.core.v3.HeaderValue;
                     * }}
                     */
                    HeaderValue.create = function(properties) {
                        return new HeaderValue(properties);
                    };

                    /**
                     * Encodes the specified HeaderValue message. Does not implicitly {@link envoy.config.core.v3.HeaderValue.verify|verify} messages.
                     * @function encode
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @static
                     * @param {envoy.config.core.v3.HeaderValue.$Properties} message HeaderValue message or plain object to encode
                     * @param {$protobuf.Writer} [writer] Writer to encode to
                     * @returns {$protobuf.Writer} Writer
                     */
                    HeaderValue.encode = function (message, writer, _depth) {
                        if (!writer)
                            writer = $Writer.create();
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $util.recursionLimit)
                            throw $Error("max depth exceeded");
                        if (message.key != null && $Object.hasOwnProperty.call(message, "key") && message.key !== "")
                            writer.uint32(/* id 1, wireType 2 =*/10).string(message.key);
                        if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== "")
                            writer.uint32(/* id 2, wireType 2 =*/18).string(message.value);
                        if (message.raw_value != null && $Object.hasOwnProperty.call(message, "raw_value") && message.raw_value.length)
                            writer.uint32(/* id 3, wireType 2 =*/26).bytes(message.raw_value);
                        if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                            for (let i = 0; i < message.$unknowns.length; ++i)
                                writer.raw(message.$unknowns[i]);
                        return writer;
                    };

                    /**
                     * Decodes a HeaderValue message from the specified reader or buffer.
                     * @function decode
                     * @memberof envoy.config.core.v3.HeaderValue
                     * @static
                     * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                     * @param {number} [length] Message length if known beforehand
                     * @returns {envoy.config.core.v3.HeaderValue & envoy.config.core.v3.HeaderValue.$Shape} HeaderValue
                     * @throws {Error} If the payload is not a reader or valid buffer
                     * @throws {$protobuf.util.ProtocolError} If required fields are missing
                     */
                    HeaderValue.decode = function (reader, length, _end, _depth, _target) {
                        if (!(reader instanceof $Reader))
                            reader = $Reader.create(reader);
                        if (_depth === $undefined)
                            _depth = 0;
                        if (_depth > $Reader.recursionLimit)
                            throw $Error("max depth exceeded");
                        let end, message, value;
                        if (length === $undefined)
                            end = reader.len;
                        else {
                            end = reader.pos + length;
                            if (end > reader.len)
                                throw $RangeError("index out of range");
                            length = reader.len;
                            reader.len = end;
                        }
                        message = _target || new $root.envoy.config.core.v3.HeaderValue();
                        while (reader.pos < end) {
                            let start = reader.pos;
                            let tag = reader.tag();
                            if (tag === _end) {
                                _end = $undefined;
                                break;
                            }
                            let wireType = tag & 7;
                            switch (tag >>>= 3) {
                            case 1: {
                                    if (wireType !== 2)
                                        break;
                                    if ((value = reader.stringVerify()).length)
                                        message.key = value;
                                    else
                                        delete message.key;
                                    continue;
                                }
                            case 2: {
                                    if (wireType !== 2)
                                        break;
                                    if ((value = reader.stringVerify()).length)
                                        message.value = value;
                                    else
                                        delete message.value;
                                    continue;
                                }
                            case 3: {
                                    if (wireType !== 2)
                                        break;
                                    if ((value = reader.bytes()).length)
                                        message.raw_value = value;
                                    else
                                        delete message.raw_value;
                                    continue;
                                }
                            }
                            reader.skipType(wireType, _depth, tag);
                            if (!reader.discardUnknown) {
                                $util.makeProp(message, "$unknowns", false);
                                (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                            }
                        }
                        if (length !== $undefined) {
                            if (reader.pos !== end)
                                throw $RangeError("index out of range");
                            reader.len = length;
                        }
                        if (_end !== $undefined)
                            throw $Error("missing end group");
                        return message;
                    };

                    return HeaderValue;
                })();

                return v3;
            })();

            return core;
        })();

        return config;
    })();

    envoy.extensions = (function() {

        /**
         * Namespace extensions.
         * @memberof envoy
         * @namespace
         */
        const extensions = {};

        extensions.common = (function() {

            /**
             * Namespace common.
             * @memberof envoy.extensions
             * @namespace
             */
            const common = {};

            common.ratelimit = (function() {

                /**
                 * Namespace ratelimit.
                 * @memberof envoy.extensions.common
                 * @namespace
                 */
                const ratelimit = {};

                ratelimit.v3 = (function() {

                    /**
                     * Namespace v3.
                     * @memberof envoy.extensions.common.ratelimit
                     * @namespace
                     */
                    const v3 = {};

                    v3.RateLimitDescriptor = (function() {

                        /**
                         * Properties of a RateLimitDescriptor.
                         * @typedef {Object} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties
                         * @property {Array.<envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties>|null} [entries] RateLimitDescriptor entries
                         * @property {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties|null} [limit] RateLimitDescriptor limit
                         * @property {google.protobuf.UInt64Value.$Properties|null} [hits_addend] RateLimitDescriptor hits_addend
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */

                        /**
                         * Properties of a RateLimitDescriptor.
                         * @memberof envoy.extensions.common.ratelimit.v3
                         * @interface IRateLimitDescriptor
                         * @augments envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties
                         * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties instead.
                         */

                        /**
                         * Shape of a RateLimitDescriptor.
                         * @typedef {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape
                         */

                        /**
                         * Constructs a new RateLimitDescriptor.
                         * @memberof envoy.extensions.common.ratelimit.v3
                         * @classdesc Represents a RateLimitDescriptor.
                         * @constructor
                         * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties=} [properties] Properties to set
                         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                         */
                        const RateLimitDescriptor = function (properties) {
                            this.entries = [];
                            if (properties)
                                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                        this[keys[i]] = properties[keys[i]];
                        };

                        /**
                         * RateLimitDescriptor entries.
                         * @member {Array.<envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties>} entries
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @instance
                         */
                        RateLimitDescriptor.prototype.entries = $util.emptyArray;

                        /**
                         * RateLimitDescriptor limit.
                         * @member {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties|null|undefined} limit
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @instance
                         */
                        RateLimitDescriptor.prototype.limit = null;

                        /**
                         * RateLimitDescriptor hits_addend.
                         * @member {google.protobuf.UInt64Value.$Properties|null|undefined} hits_addend
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @instance
                         */
                        RateLimitDescriptor.prototype.hits_addend = null;

                        /**
                         * Creates a new RateLimitDescriptor instance using the specified properties.
                         * @function create
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @static
                         * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties=} [properties] Properties to set
                         * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor} RateLimitDescriptor instance
                         * @type {{
                         *   (properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape;
                         *   (properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
                         * }}
                         */
                        RateLimitDescriptor.create = function(properties) {
                            return new RateLimitDescriptor(properties);
                        };

                        /**
                         * Encodes the specified RateLimitDescriptor message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.verify|verify} messages.
                         * @function encode
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @static
                         * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Properties} message RateLimitDescriptor message or plain object to encode
                         * @param {$protobuf.Writer} [writer] Writer to encode to
                         * @returns {$protobuf.Writer} Writer
                         */
                        RateLimitDescriptor.encode = function (message, writer, _depth) {
                            if (!writer)
                                writer = $Writer.create();
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $util.recursionLimit)
                                throw $Error("max depth exceeded");
                            if (message.entries != null && message.entries.length)
                                for (let i = 0; i < message.entries.length; ++i)
                                    $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.encode(message.entries[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                            if (message.limit != null && $Object.hasOwnProperty.call(message, "limit"))
                                $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.encode(message.limit, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                            if (message.hits_addend != null && $Object.hasOwnProperty.call(message, "hits_addend"))
                                $root.google.protobuf.UInt64Value.encode(message.hits_addend, writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                for (let i = 0; i < message.$unknowns.length; ++i)
                                    writer.raw(message.$unknowns[i]);
                            return writer;
                        };

                        /**
                         * Decodes a RateLimitDescriptor message from the specified reader or buffer.
                         * @function decode
                         * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                         * @static
                         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                         * @param {number} [length] Message length if known beforehand
                         * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.$Shape} RateLimitDescriptor
                         * @throws {Error} If the payload is not a reader or valid buffer
                         * @throws {$protobuf.util.ProtocolError} If required fields are missing
                         */
                        RateLimitDescriptor.decode = function (reader, length, _end, _depth, _target) {
                            if (!(reader instanceof $Reader))
                                reader = $Reader.create(reader);
                            if (_depth === $undefined)
                                _depth = 0;
                            if (_depth > $Reader.recursionLimit)
                                throw $Error("max depth exceeded");
                            let end, message, value;
                            if (length === $undefined)
                                end = reader.len;
                            else {
                                end = reader.pos + length;
                                if (end > reader.len)
                                    throw $RangeError("index out of range");
                                length = reader.len;
                                reader.len = end;
                            }
                            message = _target || new $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor();
                            while (reader.pos < end) {
                                let start = reader.pos;
                                let tag = reader.tag();
                                if (tag === _end) {
                                    _end = $undefined;
                                    break;
                                }
                                let wireType = tag & 7;
                                switch (tag >>>= 3) {
                                case 1: {
                                        if (wireType !== 2)
                                            break;
                                        if (!(message.entries && message.entries.length))
                                            message.entries = [];
                                        message.entries.push($root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.decode(reader, reader.size(), $undefined, _depth + 1));
                                        continue;
                                    }
                                case 2: {
                                        if (wireType !== 2)
                                            break;
                                        message.limit = $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.decode(reader, reader.size(), $undefined, _depth + 1, message.limit);
                                        continue;
                                    }
                                case 3: {
                                        if (wireType !== 2)
                                            break;
                                        message.hits_addend = $root.google.protobuf.UInt64Value.decode(reader, reader.size(), $undefined, _depth + 1, message.hits_addend);
                                        continue;
                                    }
                                }
                                reader.skipType(wireType, _depth, tag);
                                if (!reader.discardUnknown) {
                                    $util.makeProp(message, "$unknowns", false);
                                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                }
                            }
                            if (length !== $undefined) {
                                if (reader.pos !== end)
                                    throw $RangeError("index out of range");
                                reader.len = length;
                            }
                            if (_end !== $undefined)
                                throw $Error("missing end group");
                            return message;
                        };

                        RateLimitDescriptor.Entry = (function() {

                            /**
                             * Properties of an Entry.
                             * @typedef {Object} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties
                             * @property {string|null} [key] Entry key
                             * @property {string|null} [value] Entry value
                             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                             */

                            /**
                             * Properties of an Entry.
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                             * @interface IEntry
                             * @augments envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties
                             * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties instead.
                             */

                            /**
                             * Shape of an Entry.
                             * @typedef {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape
                             */

                            /**
                             * Constructs a new Entry.
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                             * @classdesc Represents an Entry.
                             * @constructor
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties=} [properties] Properties to set
                             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                             */
                            const Entry = function (properties) {
                                if (properties)
                                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                            this[keys[i]] = properties[keys[i]];
                            };

                            /**
                             * Entry key.
                             * @member {string} key
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry
                             * @instance
                             */
                            Entry.prototype.key = "";

                            /**
                             * Entry value.
                             * @member {string} value
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry
                             * @instance
                             */
                            Entry.prototype.value = "";

                            /**
                             * Creates a new Entry instance using the specified properties.
                             * @function create
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry
                             * @static
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties=} [properties] Properties to set
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry} Entry instance
                             * @type {{
                             *   (properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape;
                             *   (properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry;
                             * }}
                             */
                            Entry.create = function(properties) {
                                return new Entry(properties);
                            };

                            /**
                             * Encodes the specified Entry message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.verify|verify} messages.
                             * @function encode
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry
                             * @static
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Properties} message Entry message or plain object to encode
                             * @param {$protobuf.Writer} [writer] Writer to encode to
                             * @returns {$protobuf.Writer} Writer
                             */
                            Entry.encode = function (message, writer, _depth) {
                                if (!writer)
                                    writer = $Writer.create();
                                if (_depth === $undefined)
                                    _depth = 0;
                                if (_depth > $util.recursionLimit)
                                    throw $Error("max depth exceeded");
                                if (message.key != null && $Object.hasOwnProperty.call(message, "key") && message.key !== "")
                                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.key);
                                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== "")
                                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.value);
                                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                    for (let i = 0; i < message.$unknowns.length; ++i)
                                        writer.raw(message.$unknowns[i]);
                                return writer;
                            };

                            /**
                             * Decodes an Entry message from the specified reader or buffer.
                             * @function decode
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry
                             * @static
                             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                             * @param {number} [length] Message length if known beforehand
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry.$Shape} Entry
                             * @throws {Error} If the payload is not a reader or valid buffer
                             * @throws {$protobuf.util.ProtocolError} If required fields are missing
                             */
                            Entry.decode = function (reader, length, _end, _depth, _target) {
                                if (!(reader instanceof $Reader))
                                    reader = $Reader.create(reader);
                                if (_depth === $undefined)
                                    _depth = 0;
                                if (_depth > $Reader.recursionLimit)
                                    throw $Error("max depth exceeded");
                                let end, message, value;
                                if (length === $undefined)
                                    end = reader.len;
                                else {
                                    end = reader.pos + length;
                                    if (end > reader.len)
                                        throw $RangeError("index out of range");
                                    length = reader.len;
                                    reader.len = end;
                                }
                                message = _target || new $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry();
                                while (reader.pos < end) {
                                    let start = reader.pos;
                                    let tag = reader.tag();
                                    if (tag === _end) {
                                        _end = $undefined;
                                        break;
                                    }
                                    let wireType = tag & 7;
                                    switch (tag >>>= 3) {
                                    case 1: {
                                            if (wireType !== 2)
                                                break;
                                            if ((value = reader.stringVerify()).length)
                                                message.key = value;
                                            else
                                                delete message.key;
                                            continue;
                                        }
                                    case 2: {
                                            if (wireType !== 2)
                                                break;
                                            if ((value = reader.stringVerify()).length)
                                                message.value = value;
                                            else
                                                delete message.value;
                                            continue;
                                        }
                                    }
                                    reader.skipType(wireType, _depth, tag);
                                    if (!reader.discardUnknown) {
                                        $util.makeProp(message, "$unknowns", false);
                                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                    }
                                }
                                if (length !== $undefined) {
                                    if (reader.pos !== end)
                                        throw $RangeError("index out of range");
                                    reader.len = length;
                                }
                                if (_end !== $undefined)
                                    throw $Error("missing end group");
                                return message;
                            };

                            return Entry;
                        })();

                        RateLimitDescriptor.RateLimitOverride = (function() {

                            /**
                             * Properties of a RateLimitOverride.
                             * @typedef {Object} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties
                             * @property {number|null} [requests_per_unit] RateLimitOverride requests_per_unit
                             * @property {envoy.type.v3.RateLimitUnit|null} [unit] RateLimitOverride unit
                             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                             */

                            /**
                             * Properties of a RateLimitOverride.
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                             * @interface IRateLimitOverride
                             * @augments envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties
                             * @deprecated Use envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties instead.
                             */

                            /**
                             * Shape of a RateLimitOverride.
                             * @typedef {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties} envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape
                             */

                            /**
                             * Constructs a new RateLimitOverride.
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor
                             * @classdesc Represents a RateLimitOverride.
                             * @constructor
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties=} [properties] Properties to set
                             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                             */
                            const RateLimitOverride = function (properties) {
                                if (properties)
                                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                            this[keys[i]] = properties[keys[i]];
                            };

                            /**
                             * RateLimitOverride requests_per_unit.
                             * @member {number} requests_per_unit
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride
                             * @instance
                             */
                            RateLimitOverride.prototype.requests_per_unit = 0;

                            /**
                             * RateLimitOverride unit.
                             * @member {envoy.type.v3.RateLimitUnit} unit
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride
                             * @instance
                             */
                            RateLimitOverride.prototype.unit = 0;

                            /**
                             * Creates a new RateLimitOverride instance using the specified properties.
                             * @function create
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride
                             * @static
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties=} [properties] Properties to set
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride} RateLimitOverride instance
                             * @type {{
                             *   (properties: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape;
                             *   (properties?: envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties): envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride;
                             * }}
                             */
                            RateLimitOverride.create = function(properties) {
                                return new RateLimitOverride(properties);
                            };

                            /**
                             * Encodes the specified RateLimitOverride message. Does not implicitly {@link envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.verify|verify} messages.
                             * @function encode
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride
                             * @static
                             * @param {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Properties} message RateLimitOverride message or plain object to encode
                             * @param {$protobuf.Writer} [writer] Writer to encode to
                             * @returns {$protobuf.Writer} Writer
                             */
                            RateLimitOverride.encode = function (message, writer, _depth) {
                                if (!writer)
                                    writer = $Writer.create();
                                if (_depth === $undefined)
                                    _depth = 0;
                                if (_depth > $util.recursionLimit)
                                    throw $Error("max depth exceeded");
                                if (message.requests_per_unit != null && $Object.hasOwnProperty.call(message, "requests_per_unit") && message.requests_per_unit !== 0)
                                    writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.requests_per_unit);
                                if (message.unit != null && $Object.hasOwnProperty.call(message, "unit") && message.unit !== 0)
                                    writer.uint32(/* id 2, wireType 0 =*/16).int32(message.unit);
                                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                                    for (let i = 0; i < message.$unknowns.length; ++i)
                                        writer.raw(message.$unknowns[i]);
                                return writer;
                            };

                            /**
                             * Decodes a RateLimitOverride message from the specified reader or buffer.
                             * @function decode
                             * @memberof envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride
                             * @static
                             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                             * @param {number} [length] Message length if known beforehand
                             * @returns {envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride & envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride.$Shape} RateLimitOverride
                             * @throws {Error} If the payload is not a reader or valid buffer
                             * @throws {$protobuf.util.ProtocolError} If required fields are missing
                             */
                            RateLimitOverride.decode = function (reader, length, _end, _depth, _target) {
                                if (!(reader instanceof $Reader))
                                    reader = $Reader.create(reader);
                                if (_depth === $undefined)
                                    _depth = 0;
                                if (_depth > $Reader.recursionLimit)
                                    throw $Error("max depth exceeded");
                                let end, message, value;
                                if (length === $undefined)
                                    end = reader.len;
                                else {
                                    end = reader.pos + length;
                                    if (end > reader.len)
                                        throw $RangeError("index out of range");
                                    length = reader.len;
                                    reader.len = end;
                                }
                                message = _target || new $root.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride();
                                while (reader.pos < end) {
                                    let start = reader.pos;
                                    let tag = reader.tag();
                                    if (tag === _end) {
                                        _end = $undefined;
                                        break;
                                    }
                                    let wireType = tag & 7;
                                    switch (tag >>>= 3) {
                                    case 1: {
                                            if (wireType !== 0)
                                                break;
                                            if (value = reader.uint32())
                                                message.requests_per_unit = value;
                                            else
                                                delete message.requests_per_unit;
                                            continue;
                                        }
                                    case 2: {
                                            if (wireType !== 0)
                                                break;
                                            if (value = reader.int32())
                                                message.unit = value;
                                            else
                                                delete message.unit;
                                            continue;
                                        }
                                    }
                                    reader.skipType(wireType, _depth, tag);
                                    if (!reader.discardUnknown) {
                                        $util.makeProp(message, "$unknowns", false);
                                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                                    }
                                }
                                if (length !== $undefined) {
                                    if (reader.pos !== end)
                                        throw $RangeError("index out of range");
                                    reader.len = length;
                                }
                                if (_end !== $undefined)
                                    throw $Error("missing end group");
                                return message;
                            };

                            return RateLimitOverride;
                        })();

                        return RateLimitDescriptor;
                    })();

                    return v3;
                })();

                return ratelimit;
            })();

            return common;
        })();

        return extensions;
    })();

    envoy.type = (function() {

        /**
         * Namespace type.
         * @memberof envoy
         * @namespace
         */
        const type = {};

        type.v3 = (function() {

            /**
             * Namespace v3.
             * @memberof envoy.type
             * @namespace
             */
            const v3 = {};

            /**
             * RateLimitUnit enum.
             * @name envoy.type.v3.RateLimitUnit
             * @enum {number}
             * @property {number} UNKNOWN=0 UNKNOWN value
             * @property {number} SECOND=1 SECOND value
             * @property {number} MINUTE=2 MINUTE value
             * @property {number} HOUR=3 HOUR value
             * @property {number} DAY=4 DAY value
             * @property {number} MONTH=5 MONTH value
             * @property {number} YEAR=6 YEAR value
             * @property {number} WEEK=7 WEEK value
             */
            v3.RateLimitUnit = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "UNKNOWN"] = 0;
                values[valuesById[1] = "SECOND"] = 1;
                values[valuesById[2] = "MINUTE"] = 2;
                values[valuesById[3] = "HOUR"] = 3;
                values[valuesById[4] = "DAY"] = 4;
                values[valuesById[5] = "MONTH"] = 5;
                values[valuesById[6] = "YEAR"] = 6;
                values[valuesById[7] = "WEEK"] = 7;
                return values;
            })();

            return v3;
        })();

        return type;
    })();

    return envoy;
})();

export const google = $root.google = (() => {

    /**
     * Namespace google.
     * @exports google
     * @namespace
     */
    const google = {};

    google.protobuf = (function() {

        /**
         * Namespace protobuf.
         * @memberof google
         * @namespace
         */
        const protobuf = {};

        protobuf.DoubleValue = (function() {

            /**
             * Properties of a DoubleValue.
             * @typedef {Object} google.protobuf.DoubleValue.$Properties
             * @property {number|null} [value] DoubleValue value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DoubleValue.
             * @memberof google.protobuf
             * @interface IDoubleValue
             * @augments google.protobuf.DoubleValue.$Properties
             * @deprecated Use google.protobuf.DoubleValue.$Properties instead.
             */

            /**
             * Shape of a DoubleValue.
             * @typedef {google.protobuf.DoubleValue.$Properties} google.protobuf.DoubleValue.$Shape
             */

            /**
             * Constructs a new DoubleValue.
             * @memberof google.protobuf
             * @classdesc Represents a DoubleValue.
             * @constructor
             * @param {google.protobuf.DoubleValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DoubleValue = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DoubleValue value.
             * @member {number} value
             * @memberof google.protobuf.DoubleValue
             * @instance
             */
            DoubleValue.prototype.value = 0;

            /**
             * Creates a new DoubleValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.DoubleValue
             * @static
             * @param {google.protobuf.DoubleValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.DoubleValue} DoubleValue instance
             * @type {{
             *   (properties: google.protobuf.DoubleValue.$Shape): google.protobuf.DoubleValue & google.protobuf.DoubleValue.$Shape;
             *   (properties?: google.protobuf.DoubleValue.$Properties): google.protobuf.DoubleValue;
             * }}
             */
            DoubleValue.create = function(properties) {
                return new DoubleValue(properties);
            };

            /**
             * Encodes the specified DoubleValue message. Does not implicitly {@link google.protobuf.DoubleValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.DoubleValue
             * @static
             * @param {google.protobuf.DoubleValue.$Properties} message DoubleValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DoubleValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && !$Object.is(message.value, 0))
                    writer.uint32(/* id 1, wireType 1 =*/9).double(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DoubleValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.DoubleValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.DoubleValue & google.protobuf.DoubleValue.$Shape} DoubleValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DoubleValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.DoubleValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DoubleValue;
        })();

        protobuf.FloatValue = (function() {

            /**
             * Properties of a FloatValue.
             * @typedef {Object} google.protobuf.FloatValue.$Properties
             * @property {number|null} [value] FloatValue value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a FloatValue.
             * @memberof google.protobuf
             * @interface IFloatValue
             * @augments google.protobuf.FloatValue.$Properties
             * @deprecated Use google.protobuf.FloatValue.$Properties instead.
             */

            /**
             * Shape of a FloatValue.
             * @typedef {google.protobuf.FloatValue.$Properties} google.protobuf.FloatValue.$Shape
             */

            /**
             * Constructs a new FloatValue.
             * @memberof google.protobuf
             * @classdesc Represents a FloatValue.
             * @constructor
             * @param {google.protobuf.FloatValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const FloatValue = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * FloatValue value.
             * @member {number} value
             * @memberof google.protobuf.FloatValue
             * @instance
             */
            FloatValue.prototype.value = 0;

            /**
             * Creates a new FloatValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.FloatValue
             * @static
             * @param {google.protobuf.FloatValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.FloatValue} FloatValue instance
             * @type {{
             *   (properties: google.protobuf.FloatValue.$Shape): google.protobuf.FloatValue & google.protobuf.FloatValue.$Shape;
             *   (properties?: google.protobuf.FloatValue.$Properties): google.protobuf.FloatValue;
             * }}
             */
            FloatValue.create = function(properties) {
                return new FloatValue(properties);
            };

            /**
             * Encodes the specified FloatValue message. Does not implicitly {@link google.protobuf.FloatValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.FloatValue
             * @static
             * @param {google.protobuf.FloatValue.$Properties} message FloatValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            FloatValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && !$Object.is(message.value, 0))
                    writer.uint32(/* id 1, wireType 5 =*/13).float(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a FloatValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.FloatValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.FloatValue & google.protobuf.FloatValue.$Shape} FloatValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            FloatValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.FloatValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 5)
                                break;
                            if (!$Object.is(value = reader.float(), 0))
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return FloatValue;
        })();

        protobuf.Int64Value = (function() {

            /**
             * Properties of an Int64Value.
             * @typedef {Object} google.protobuf.Int64Value.$Properties
             * @property {number|Long|null} [value] Int64Value value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an Int64Value.
             * @memberof google.protobuf
             * @interface IInt64Value
             * @augments google.protobuf.Int64Value.$Properties
             * @deprecated Use google.protobuf.Int64Value.$Properties instead.
             */

            /**
             * Shape of an Int64Value.
             * @typedef {google.protobuf.Int64Value.$Properties} google.protobuf.Int64Value.$Shape
             */

            /**
             * Constructs a new Int64Value.
             * @memberof google.protobuf
             * @classdesc Represents an Int64Value.
             * @constructor
             * @param {google.protobuf.Int64Value.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Int64Value = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Int64Value value.
             * @member {number|Long} value
             * @memberof google.protobuf.Int64Value
             * @instance
             */
            Int64Value.prototype.value = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Creates a new Int64Value instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Int64Value
             * @static
             * @param {google.protobuf.Int64Value.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Int64Value} Int64Value instance
             * @type {{
             *   (properties: google.protobuf.Int64Value.$Shape): google.protobuf.Int64Value & google.protobuf.Int64Value.$Shape;
             *   (properties?: google.protobuf.Int64Value.$Properties): google.protobuf.Int64Value;
             * }}
             */
            Int64Value.create = function(properties) {
                return new Int64Value(properties);
            };

            /**
             * Encodes the specified Int64Value message. Does not implicitly {@link google.protobuf.Int64Value.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Int64Value
             * @static
             * @param {google.protobuf.Int64Value.$Properties} message Int64Value message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Int64Value.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && (typeof message.value === "object" ? message.value.low || message.value.high : message.value !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an Int64Value message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Int64Value
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Int64Value & google.protobuf.Int64Value.$Shape} Int64Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Int64Value.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Int64Value();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Int64Value;
        })();

        protobuf.UInt64Value = (function() {

            /**
             * Properties of a UInt64Value.
             * @typedef {Object} google.protobuf.UInt64Value.$Properties
             * @property {number|Long|null} [value] UInt64Value value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a UInt64Value.
             * @memberof google.protobuf
             * @interface IUInt64Value
             * @augments google.protobuf.UInt64Value.$Properties
             * @deprecated Use google.protobuf.UInt64Value.$Properties instead.
             */

            /**
             * Shape of a UInt64Value.
             * @typedef {google.protobuf.UInt64Value.$Properties} google.protobuf.UInt64Value.$Shape
             */

            /**
             * Constructs a new UInt64Value.
             * @memberof google.protobuf
             * @classdesc Represents a UInt64Value.
             * @constructor
             * @param {google.protobuf.UInt64Value.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const UInt64Value = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * UInt64Value value.
             * @member {number|Long} value
             * @memberof google.protobuf.UInt64Value
             * @instance
             */
            UInt64Value.prototype.value = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

            /**
             * Creates a new UInt64Value instance using the specified properties.
             * @function create
             * @memberof google.protobuf.UInt64Value
             * @static
             * @param {google.protobuf.UInt64Value.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.UInt64Value} UInt64Value instance
             * @type {{
             *   (properties: google.protobuf.UInt64Value.$Shape): google.protobuf.UInt64Value & google.protobuf.UInt64Value.$Shape;
             *   (properties?: google.protobuf.UInt64Value.$Properties): google.protobuf.UInt64Value;
             * }}
             */
            UInt64Value.create = function(properties) {
                return new UInt64Value(properties);
            };

            /**
             * Encodes the specified UInt64Value message. Does not implicitly {@link google.protobuf.UInt64Value.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.UInt64Value
             * @static
             * @param {google.protobuf.UInt64Value.$Properties} message UInt64Value message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            UInt64Value.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && (typeof message.value === "object" ? message.value.low || message.value.high : message.value !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).uint64(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a UInt64Value message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.UInt64Value
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.UInt64Value & google.protobuf.UInt64Value.$Shape} UInt64Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            UInt64Value.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.UInt64Value();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.uint64()) === "object" ? value.low || value.high : value !== 0)
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return UInt64Value;
        })();

        protobuf.Int32Value = (function() {

            /**
             * Properties of an Int32Value.
             * @typedef {Object} google.protobuf.Int32Value.$Properties
             * @property {number|null} [value] Int32Value value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an Int32Value.
             * @memberof google.protobuf
             * @interface IInt32Value
             * @augments google.protobuf.Int32Value.$Properties
             * @deprecated Use google.protobuf.Int32Value.$Properties instead.
             */

            /**
             * Shape of an Int32Value.
             * @typedef {google.protobuf.Int32Value.$Properties} google.protobuf.Int32Value.$Shape
             */

            /**
             * Constructs a new Int32Value.
             * @memberof google.protobuf
             * @classdesc Represents an Int32Value.
             * @constructor
             * @param {google.protobuf.Int32Value.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Int32Value = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Int32Value value.
             * @member {number} value
             * @memberof google.protobuf.Int32Value
             * @instance
             */
            Int32Value.prototype.value = 0;

            /**
             * Creates a new Int32Value instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Int32Value
             * @static
             * @param {google.protobuf.Int32Value.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Int32Value} Int32Value instance
             * @type {{
             *   (properties: google.protobuf.Int32Value.$Shape): google.protobuf.Int32Value & google.protobuf.Int32Value.$Shape;
             *   (properties?: google.protobuf.Int32Value.$Properties): google.protobuf.Int32Value;
             * }}
             */
            Int32Value.create = function(properties) {
                return new Int32Value(properties);
            };

            /**
             * Encodes the specified Int32Value message. Does not implicitly {@link google.protobuf.Int32Value.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Int32Value
             * @static
             * @param {google.protobuf.Int32Value.$Properties} message Int32Value message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Int32Value.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an Int32Value message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Int32Value
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Int32Value & google.protobuf.Int32Value.$Shape} Int32Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Int32Value.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Int32Value();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Int32Value;
        })();

        protobuf.UInt32Value = (function() {

            /**
             * Properties of a UInt32Value.
             * @typedef {Object} google.protobuf.UInt32Value.$Properties
             * @property {number|null} [value] UInt32Value value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a UInt32Value.
             * @memberof google.protobuf
             * @interface IUInt32Value
             * @augments google.protobuf.UInt32Value.$Properties
             * @deprecated Use google.protobuf.UInt32Value.$Properties instead.
             */

            /**
             * Shape of a UInt32Value.
             * @typedef {google.protobuf.UInt32Value.$Properties} google.protobuf.UInt32Value.$Shape
             */

            /**
             * Constructs a new UInt32Value.
             * @memberof google.protobuf
             * @classdesc Represents a UInt32Value.
             * @constructor
             * @param {google.protobuf.UInt32Value.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const UInt32Value = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * UInt32Value value.
             * @member {number} value
             * @memberof google.protobuf.UInt32Value
             * @instance
             */
            UInt32Value.prototype.value = 0;

            /**
             * Creates a new UInt32Value instance using the specified properties.
             * @function create
             * @memberof google.protobuf.UInt32Value
             * @static
             * @param {google.protobuf.UInt32Value.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.UInt32Value} UInt32Value instance
             * @type {{
             *   (properties: google.protobuf.UInt32Value.$Shape): google.protobuf.UInt32Value & google.protobuf.UInt32Value.$Shape;
             *   (properties?: google.protobuf.UInt32Value.$Properties): google.protobuf.UInt32Value;
             * }}
             */
            UInt32Value.create = function(properties) {
                return new UInt32Value(properties);
            };

            /**
             * Encodes the specified UInt32Value message. Does not implicitly {@link google.protobuf.UInt32Value.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.UInt32Value
             * @static
             * @param {google.protobuf.UInt32Value.$Properties} message UInt32Value message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            UInt32Value.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a UInt32Value message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.UInt32Value
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.UInt32Value & google.protobuf.UInt32Value.$Shape} UInt32Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            UInt32Value.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.UInt32Value();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return UInt32Value;
        })();

        protobuf.BoolValue = (function() {

            /**
             * Properties of a BoolValue.
             * @typedef {Object} google.protobuf.BoolValue.$Properties
             * @property {boolean|null} [value] BoolValue value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a BoolValue.
             * @memberof google.protobuf
             * @interface IBoolValue
             * @augments google.protobuf.BoolValue.$Properties
             * @deprecated Use google.protobuf.BoolValue.$Properties instead.
             */

            /**
             * Shape of a BoolValue.
             * @typedef {google.protobuf.BoolValue.$Properties} google.protobuf.BoolValue.$Shape
             */

            /**
             * Constructs a new BoolValue.
             * @memberof google.protobuf
             * @classdesc Represents a BoolValue.
             * @constructor
             * @param {google.protobuf.BoolValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const BoolValue = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * BoolValue value.
             * @member {boolean} value
             * @memberof google.protobuf.BoolValue
             * @instance
             */
            BoolValue.prototype.value = false;

            /**
             * Creates a new BoolValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.BoolValue
             * @static
             * @param {google.protobuf.BoolValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.BoolValue} BoolValue instance
             * @type {{
             *   (properties: google.protobuf.BoolValue.$Shape): google.protobuf.BoolValue & google.protobuf.BoolValue.$Shape;
             *   (properties?: google.protobuf.BoolValue.$Properties): google.protobuf.BoolValue;
             * }}
             */
            BoolValue.create = function(properties) {
                return new BoolValue(properties);
            };

            /**
             * Encodes the specified BoolValue message. Does not implicitly {@link google.protobuf.BoolValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.BoolValue
             * @static
             * @param {google.protobuf.BoolValue.$Properties} message BoolValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            BoolValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== false)
                    writer.uint32(/* id 1, wireType 0 =*/8).bool(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a BoolValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.BoolValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.BoolValue & google.protobuf.BoolValue.$Shape} BoolValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            BoolValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.BoolValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return BoolValue;
        })();

        protobuf.StringValue = (function() {

            /**
             * Properties of a StringValue.
             * @typedef {Object} google.protobuf.StringValue.$Properties
             * @property {string|null} [value] StringValue value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a StringValue.
             * @memberof google.protobuf
             * @interface IStringValue
             * @augments google.protobuf.StringValue.$Properties
             * @deprecated Use google.protobuf.StringValue.$Properties instead.
             */

            /**
             * Shape of a StringValue.
             * @typedef {google.protobuf.StringValue.$Properties} google.protobuf.StringValue.$Shape
             */

            /**
             * Constructs a new StringValue.
             * @memberof google.protobuf
             * @classdesc Represents a StringValue.
             * @constructor
             * @param {google.protobuf.StringValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const StringValue = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * StringValue value.
             * @member {string} value
             * @memberof google.protobuf.StringValue
             * @instance
             */
            StringValue.prototype.value = "";

            /**
             * Creates a new StringValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.StringValue
             * @static
             * @param {google.protobuf.StringValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.StringValue} StringValue instance
             * @type {{
             *   (properties: google.protobuf.StringValue.$Shape): google.protobuf.StringValue & google.protobuf.StringValue.$Shape;
             *   (properties?: google.protobuf.StringValue.$Properties): google.protobuf.StringValue;
             * }}
             */
            StringValue.create = function(properties) {
                return new StringValue(properties);
            };

            /**
             * Encodes the specified StringValue message. Does not implicitly {@link google.protobuf.StringValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.StringValue
             * @static
             * @param {google.protobuf.StringValue.$Properties} message StringValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            StringValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a StringValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.StringValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.StringValue & google.protobuf.StringValue.$Shape} StringValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            StringValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.StringValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return StringValue;
        })();

        protobuf.BytesValue = (function() {

            /**
             * Properties of a BytesValue.
             * @typedef {Object} google.protobuf.BytesValue.$Properties
             * @property {Uint8Array|null} [value] BytesValue value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a BytesValue.
             * @memberof google.protobuf
             * @interface IBytesValue
             * @augments google.protobuf.BytesValue.$Properties
             * @deprecated Use google.protobuf.BytesValue.$Properties instead.
             */

            /**
             * Shape of a BytesValue.
             * @typedef {google.protobuf.BytesValue.$Properties} google.protobuf.BytesValue.$Shape
             */

            /**
             * Constructs a new BytesValue.
             * @memberof google.protobuf
             * @classdesc Represents a BytesValue.
             * @constructor
             * @param {google.protobuf.BytesValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const BytesValue = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * BytesValue value.
             * @member {Uint8Array} value
             * @memberof google.protobuf.BytesValue
             * @instance
             */
            BytesValue.prototype.value = $util.newBuffer([]);

            /**
             * Creates a new BytesValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.BytesValue
             * @static
             * @param {google.protobuf.BytesValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.BytesValue} BytesValue instance
             * @type {{
             *   (properties: google.protobuf.BytesValue.$Shape): google.protobuf.BytesValue & google.protobuf.BytesValue.$Shape;
             *   (properties?: google.protobuf.BytesValue.$Properties): google.protobuf.BytesValue;
             * }}
             */
            BytesValue.create = function(properties) {
                return new BytesValue(properties);
            };

            /**
             * Encodes the specified BytesValue message. Does not implicitly {@link google.protobuf.BytesValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.BytesValue
             * @static
             * @param {google.protobuf.BytesValue.$Properties} message BytesValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            BytesValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a BytesValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.BytesValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.BytesValue & google.protobuf.BytesValue.$Shape} BytesValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            BytesValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.BytesValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return BytesValue;
        })();

        protobuf.Duration = (function() {

            /**
             * Properties of a Duration.
             * @typedef {Object} google.protobuf.Duration.$Properties
             * @property {number|Long|null} [seconds] Duration seconds
             * @property {number|null} [nanos] Duration nanos
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Duration.
             * @memberof google.protobuf
             * @interface IDuration
             * @augments google.protobuf.Duration.$Properties
             * @deprecated Use google.protobuf.Duration.$Properties instead.
             */

            /**
             * Shape of a Duration.
             * @typedef {google.protobuf.Duration.$Properties} google.protobuf.Duration.$Shape
             */

            /**
             * Constructs a new Duration.
             * @memberof google.protobuf
             * @classdesc Represents a Duration.
             * @constructor
             * @param {google.protobuf.Duration.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Duration = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Duration seconds.
             * @member {number|Long} seconds
             * @memberof google.protobuf.Duration
             * @instance
             */
            Duration.prototype.seconds = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Duration nanos.
             * @member {number} nanos
             * @memberof google.protobuf.Duration
             * @instance
             */
            Duration.prototype.nanos = 0;

            /**
             * Creates a new Duration instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Duration
             * @static
             * @param {google.protobuf.Duration.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Duration} Duration instance
             * @type {{
             *   (properties: google.protobuf.Duration.$Shape): google.protobuf.Duration & google.protobuf.Duration.$Shape;
             *   (properties?: google.protobuf.Duration.$Properties): google.protobuf.Duration;
             * }}
             */
            Duration.create = function(properties) {
                return new Duration(properties);
            };

            /**
             * Encodes the specified Duration message. Does not implicitly {@link google.protobuf.Duration.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Duration
             * @static
             * @param {google.protobuf.Duration.$Properties} message Duration message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Duration.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.seconds != null && $Object.hasOwnProperty.call(message, "seconds") && (typeof message.seconds === "object" ? message.seconds.low || message.seconds.high : message.seconds !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.seconds);
                if (message.nanos != null && $Object.hasOwnProperty.call(message, "nanos") && message.nanos !== 0)
                    writer.uint32(/* id 2, wireType 0 =*/16).int32(message.nanos);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Duration message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Duration
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Duration & google.protobuf.Duration.$Shape} Duration
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Duration.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Duration();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.seconds = value;
                            else
                                delete message.seconds;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.nanos = value;
                            else
                                delete message.nanos;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Duration;
        })();

        protobuf.Struct = (function() {

            /**
             * Properties of a Struct.
             * @typedef {Object} google.protobuf.Struct.$Properties
             * @property {Object.<string,google.protobuf.Value.$Properties>|null} [fields] Struct fields
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Struct.
             * @memberof google.protobuf
             * @interface IStruct
             * @augments google.protobuf.Struct.$Properties
             * @deprecated Use google.protobuf.Struct.$Properties instead.
             */

            /**
             * Shape of a Struct.
             * @typedef {{
             *   fields?: Object.<string,google.protobuf.Value.$Shape>|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} google.protobuf.Struct.$Shape
             */

            /**
             * Constructs a new Struct.
             * @memberof google.protobuf
             * @classdesc Represents a Struct.
             * @constructor
             * @param {google.protobuf.Struct.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Struct = function (properties) {
                this.fields = {};
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Struct fields.
             * @member {Object.<string,google.protobuf.Value.$Properties>} fields
             * @memberof google.protobuf.Struct
             * @instance
             */
            Struct.prototype.fields = $util.emptyObject;

            /**
             * Creates a new Struct instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Struct
             * @static
             * @param {google.protobuf.Struct.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Struct} Struct instance
             * @type {{
             *   (properties: google.protobuf.Struct.$Shape): google.protobuf.Struct & google.protobuf.Struct.$Shape;
             *   (properties?: google.protobuf.Struct.$Properties): google.protobuf.Struct;
             * }}
             */
            Struct.create = function(properties) {
                return new Struct(properties);
            };

            /**
             * Encodes the specified Struct message. Does not implicitly {@link google.protobuf.Struct.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Struct
             * @static
             * @param {google.protobuf.Struct.$Properties} message Struct message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Struct.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.fields != null && $Object.hasOwnProperty.call(message, "fields"))
                    for (let keys = $Object.keys(message.fields), i = 0; i < keys.length; ++i) {
                        writer.uint32(/* id 1, wireType 2 =*/10).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                        $root.google.protobuf.Value.encode(message.fields[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                    }
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Struct message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Struct
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Struct & google.protobuf.Struct.$Shape} Struct
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Struct.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, key, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Struct();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (message.fields === $util.emptyObject)
                                message.fields = {};
                            let end2 = reader.size() + reader.pos;
                            if (end2 > reader.len)
                                throw $RangeError("index out of range");
                            reader.len = end2;
                            key = "";
                            value = null;
                            while (reader.pos < end2) {
                                let tag2 = reader.tag();
                                wireType = tag2 & 7;
                                switch (tag2 >>>= 3) {
                                case 1:
                                    if (wireType !== 2)
                                        break;
                                    key = reader.stringVerify();
                                    continue;
                                case 2:
                                    if (wireType !== 2)
                                        break;
                                    value = $root.google.protobuf.Value.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                    continue;
                                }
                                reader.skipType(wireType, _depth, tag2);
                            }
                            if (reader.pos !== end2)
                                throw $RangeError("index out of range");
                            reader.len = end;
                            if (key === "__proto__")
                                $util.makeProp(message.fields, key);
                            message.fields[key] = value || new $root.google.protobuf.Value();
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Struct;
        })();

        protobuf.Value = (function() {

            /**
             * Properties of a Value.
             * @typedef {Object} google.protobuf.Value.$Properties
             * @property {google.protobuf.NullValue|null} [nullValue] Value nullValue
             * @property {number|null} [numberValue] Value numberValue
             * @property {string|null} [stringValue] Value stringValue
             * @property {boolean|null} [boolValue] Value boolValue
             * @property {google.protobuf.Struct.$Properties|null} [structValue] Value structValue
             * @property {google.protobuf.ListValue.$Properties|null} [listValue] Value listValue
             * @property {"nullValue"|"numberValue"|"stringValue"|"boolValue"|"structValue"|"listValue"} [kind] Value kind
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Value.
             * @memberof google.protobuf
             * @interface IValue
             * @augments google.protobuf.Value.$Properties
             * @deprecated Use google.protobuf.Value.$Properties instead.
             */

            /**
             * Narrowed shape of a Value.
             * @typedef {{
             *   nullValue?: google.protobuf.NullValue|null;
             *   numberValue?: number|null;
             *   stringValue?: string|null;
             *   boolValue?: boolean|null;
             *   structValue?: google.protobuf.Struct.$Shape|null;
             *   listValue?: google.protobuf.ListValue.$Shape|null;
             *   $unknowns?: Array.<Uint8Array>;
             * } & (
             *   ({ kind?: undefined; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "nullValue"; nullValue: google.protobuf.NullValue; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "numberValue"; nullValue?: null; numberValue: number; stringValue?: null; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "stringValue"; nullValue?: null; numberValue?: null; stringValue: string; boolValue?: null; structValue?: null; listValue?: null }|{ kind?: "boolValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue: boolean; structValue?: null; listValue?: null }|{ kind?: "structValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue: google.protobuf.Struct.$Shape; listValue?: null }|{ kind?: "listValue"; nullValue?: null; numberValue?: null; stringValue?: null; boolValue?: null; structValue?: null; listValue: google.protobuf.ListValue.$Shape })
             * )} google.protobuf.Value.$Shape
             */

            /**
             * Constructs a new Value.
             * @memberof google.protobuf
             * @classdesc Represents a Value.
             * @constructor
             * @param {google.protobuf.Value.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Value = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Value nullValue.
             * @member {google.protobuf.NullValue|null|undefined} nullValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.nullValue = null;

            /**
             * Value numberValue.
             * @member {number|null|undefined} numberValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.numberValue = null;

            /**
             * Value stringValue.
             * @member {string|null|undefined} stringValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.stringValue = null;

            /**
             * Value boolValue.
             * @member {boolean|null|undefined} boolValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.boolValue = null;

            /**
             * Value structValue.
             * @member {google.protobuf.Struct.$Properties|null|undefined} structValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.structValue = null;

            /**
             * Value listValue.
             * @member {google.protobuf.ListValue.$Properties|null|undefined} listValue
             * @memberof google.protobuf.Value
             * @instance
             */
            Value.prototype.listValue = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            /**
             * Value kind.
             * @member {"nullValue"|"numberValue"|"stringValue"|"boolValue"|"structValue"|"listValue"|undefined} kind
             * @memberof google.protobuf.Value
             * @instance
             */
            $Object.defineProperty(Value.prototype, "kind", {
                get: $util.oneOfGetter($oneOfFields = ["nullValue", "numberValue", "stringValue", "boolValue", "structValue", "listValue"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new Value instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Value
             * @static
             * @param {google.protobuf.Value.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Value} Value instance
             * @type {{
             *   (properties: google.protobuf.Value.$Shape): google.protobuf.Value & google.protobuf.Value.$Shape;
             *   (properties?: google.protobuf.Value.$Properties): google.protobuf.Value;
             * }}
             */
            Value.create = function(properties) {
                return new Value(properties);
            };

            /**
             * Encodes the specified Value message. Does not implicitly {@link google.protobuf.Value.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Value
             * @static
             * @param {google.protobuf.Value.$Properties} message Value message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Value.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.nullValue != null && $Object.hasOwnProperty.call(message, "nullValue"))
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.nullValue);
                if (message.numberValue != null && $Object.hasOwnProperty.call(message, "numberValue"))
                    writer.uint32(/* id 2, wireType 1 =*/17).double(message.numberValue);
                if (message.stringValue != null && $Object.hasOwnProperty.call(message, "stringValue"))
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.stringValue);
                if (message.boolValue != null && $Object.hasOwnProperty.call(message, "boolValue"))
                    writer.uint32(/* id 4, wireType 0 =*/32).bool(message.boolValue);
                if (message.structValue != null && $Object.hasOwnProperty.call(message, "structValue"))
                    $root.google.protobuf.Struct.encode(message.structValue, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.listValue != null && $Object.hasOwnProperty.call(message, "listValue"))
                    $root.google.protobuf.ListValue.encode(message.listValue, writer.uint32(/* id 6, wireType 2 =*/50).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Value message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Value
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Value & google.protobuf.Value.$Shape} Value
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Value.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Value();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            message.nullValue = reader.int32();
                            message.kind = "nullValue";
                            continue;
                        }
                    case 2: {
                            if (wireType !== 1)
                                break;
                            message.numberValue = reader.double();
                            message.kind = "numberValue";
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            message.stringValue = reader.stringVerify();
                            message.kind = "stringValue";
                            continue;
                        }
                    case 4: {
                            if (wireType !== 0)
                                break;
                            message.boolValue = reader.bool();
                            message.kind = "boolValue";
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.structValue = $root.google.protobuf.Struct.decode(reader, reader.size(), $undefined, _depth + 1, message.structValue);
                            message.kind = "structValue";
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            message.listValue = $root.google.protobuf.ListValue.decode(reader, reader.size(), $undefined, _depth + 1, message.listValue);
                            message.kind = "listValue";
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Value;
        })();

        /**
         * NullValue enum.
         * @name google.protobuf.NullValue
         * @enum {number}
         * @property {number} NULL_VALUE=0 NULL_VALUE value
         */
        protobuf.NullValue = (function() {
            const valuesById = $Object.create(null), values = $Object.create(valuesById);
            values[valuesById[0] = "NULL_VALUE"] = 0;
            return values;
        })();

        protobuf.ListValue = (function() {

            /**
             * Properties of a ListValue.
             * @typedef {Object} google.protobuf.ListValue.$Properties
             * @property {Array.<google.protobuf.Value.$Properties>|null} [values] ListValue values
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a ListValue.
             * @memberof google.protobuf
             * @interface IListValue
             * @augments google.protobuf.ListValue.$Properties
             * @deprecated Use google.protobuf.ListValue.$Properties instead.
             */

            /**
             * Shape of a ListValue.
             * @typedef {{
             *   values?: Array.<google.protobuf.Value.$Shape>|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} google.protobuf.ListValue.$Shape
             */

            /**
             * Constructs a new ListValue.
             * @memberof google.protobuf
             * @classdesc Represents a ListValue.
             * @constructor
             * @param {google.protobuf.ListValue.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const ListValue = function (properties) {
                this.values = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * ListValue values.
             * @member {Array.<google.protobuf.Value.$Properties>} values
             * @memberof google.protobuf.ListValue
             * @instance
             */
            ListValue.prototype.values = $util.emptyArray;

            /**
             * Creates a new ListValue instance using the specified properties.
             * @function create
             * @memberof google.protobuf.ListValue
             * @static
             * @param {google.protobuf.ListValue.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.ListValue} ListValue instance
             * @type {{
             *   (properties: google.protobuf.ListValue.$Shape): google.protobuf.ListValue & google.protobuf.ListValue.$Shape;
             *   (properties?: google.protobuf.ListValue.$Properties): google.protobuf.ListValue;
             * }}
             */
            ListValue.create = function(properties) {
                return new ListValue(properties);
            };

            /**
             * Encodes the specified ListValue message. Does not implicitly {@link google.protobuf.ListValue.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.ListValue
             * @static
             * @param {google.protobuf.ListValue.$Properties} message ListValue message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            ListValue.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    for (let i = 0; i < message.values.length; ++i)
                        $root.google.protobuf.Value.encode(message.values[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a ListValue message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.ListValue
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.ListValue & google.protobuf.ListValue.$Shape} ListValue
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            ListValue.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.ListValue();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push($root.google.protobuf.Value.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return ListValue;
        })();

        protobuf.Timestamp = (function() {

            /**
             * Properties of a Timestamp.
             * @typedef {Object} google.protobuf.Timestamp.$Properties
             * @property {number|Long|null} [seconds] Timestamp seconds
             * @property {number|null} [nanos] Timestamp nanos
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Timestamp.
             * @memberof google.protobuf
             * @interface ITimestamp
             * @augments google.protobuf.Timestamp.$Properties
             * @deprecated Use google.protobuf.Timestamp.$Properties instead.
             */

            /**
             * Shape of a Timestamp.
             * @typedef {google.protobuf.Timestamp.$Properties} google.protobuf.Timestamp.$Shape
             */

            /**
             * Constructs a new Timestamp.
             * @memberof google.protobuf
             * @classdesc Represents a Timestamp.
             * @constructor
             * @param {google.protobuf.Timestamp.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Timestamp = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Timestamp seconds.
             * @member {number|Long} seconds
             * @memberof google.protobuf.Timestamp
             * @instance
             */
            Timestamp.prototype.seconds = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Timestamp nanos.
             * @member {number} nanos
             * @memberof google.protobuf.Timestamp
             * @instance
             */
            Timestamp.prototype.nanos = 0;

            /**
             * Creates a new Timestamp instance using the specified properties.
             * @function create
             * @memberof google.protobuf.Timestamp
             * @static
             * @param {google.protobuf.Timestamp.$Properties=} [properties] Properties to set
             * @returns {google.protobuf.Timestamp} Timestamp instance
             * @type {{
             *   (properties: google.protobuf.Timestamp.$Shape): google.protobuf.Timestamp & google.protobuf.Timestamp.$Shape;
             *   (properties?: google.protobuf.Timestamp.$Properties): google.protobuf.Timestamp;
             * }}
             */
            Timestamp.create = function(properties) {
                return new Timestamp(properties);
            };

            /**
             * Encodes the specified Timestamp message. Does not implicitly {@link google.protobuf.Timestamp.verify|verify} messages.
             * @function encode
             * @memberof google.protobuf.Timestamp
             * @static
             * @param {google.protobuf.Timestamp.$Properties} message Timestamp message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Timestamp.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.seconds != null && $Object.hasOwnProperty.call(message, "seconds") && (typeof message.seconds === "object" ? message.seconds.low || message.seconds.high : message.seconds !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.seconds);
                if (message.nanos != null && $Object.hasOwnProperty.call(message, "nanos") && message.nanos !== 0)
                    writer.uint32(/* id 2, wireType 0 =*/16).int32(message.nanos);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Timestamp message from the specified reader or buffer.
             * @function decode
             * @memberof google.protobuf.Timestamp
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {google.protobuf.Timestamp & google.protobuf.Timestamp.$Shape} Timestamp
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Timestamp.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.google.protobuf.Timestamp();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.seconds = value;
                            else
                                delete message.seconds;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.nanos = value;
                            else
                                delete message.nanos;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Timestamp;
        })();

        return protobuf;
    })();

    return google;
})();

export const sluice = $root.sluice = (() => {

    /**
     * Namespace sluice.
     * @exports sluice
     * @namespace
     */
    const sluice = {};

    sluice.v1 = (function() {

        /**
         * Namespace v1.
         * @memberof sluice
         * @namespace
         */
        const v1 = {};

        v1.Entry = (function() {

            /**
             * Properties of an Entry.
             * @typedef {Object} sluice.v1.Entry.$Properties
             * @property {string|null} [key] Entry key
             * @property {string|null} [value] Entry value
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an Entry.
             * @memberof sluice.v1
             * @interface IEntry
             * @augments sluice.v1.Entry.$Properties
             * @deprecated Use sluice.v1.Entry.$Properties instead.
             */

            /**
             * Shape of an Entry.
             * @typedef {sluice.v1.Entry.$Properties} sluice.v1.Entry.$Shape
             */

            /**
             * Constructs a new Entry.
             * @memberof sluice.v1
             * @classdesc Represents an Entry.
             * @constructor
             * @param {sluice.v1.Entry.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Entry = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Entry key.
             * @member {string} key
             * @memberof sluice.v1.Entry
             * @instance
             */
            Entry.prototype.key = "";

            /**
             * Entry value.
             * @member {string} value
             * @memberof sluice.v1.Entry
             * @instance
             */
            Entry.prototype.value = "";

            /**
             * Creates a new Entry instance using the specified properties.
             * @function create
             * @memberof sluice.v1.Entry
             * @static
             * @param {sluice.v1.Entry.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.Entry} Entry instance
             * @type {{
             *   (properties: sluice.v1.Entry.$Shape): sluice.v1.Entry & sluice.v1.Entry.$Shape;
             *   (properties?: sluice.v1.Entry.$Properties): sluice.v1.Entry;
             * }}
             */
            Entry.create = function(properties) {
                return new Entry(properties);
            };

            /**
             * Encodes the specified Entry message. Does not implicitly {@link sluice.v1.Entry.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.Entry
             * @static
             * @param {sluice.v1.Entry.$Properties} message Entry message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Entry.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.key != null && $Object.hasOwnProperty.call(message, "key") && message.key !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.key);
                if (message.value != null && $Object.hasOwnProperty.call(message, "value") && message.value !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.value);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an Entry message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.Entry
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.Entry & sluice.v1.Entry.$Shape} Entry
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Entry.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.Entry();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.key = value;
                            else
                                delete message.key;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.value = value;
                            else
                                delete message.value;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Entry;
        })();

        v1.Descriptor = (function() {

            /**
             * Properties of a Descriptor.
             * @typedef {Object} sluice.v1.Descriptor.$Properties
             * @property {Array.<sluice.v1.Entry.$Properties>|null} [entries] Descriptor entries
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a Descriptor.
             * @memberof sluice.v1
             * @interface IDescriptor
             * @augments sluice.v1.Descriptor.$Properties
             * @deprecated Use sluice.v1.Descriptor.$Properties instead.
             */

            /**
             * Shape of a Descriptor.
             * @typedef {sluice.v1.Descriptor.$Properties} sluice.v1.Descriptor.$Shape
             */

            /**
             * Constructs a new Descriptor.
             * @memberof sluice.v1
             * @classdesc Represents a Descriptor.
             * @constructor
             * @param {sluice.v1.Descriptor.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const Descriptor = function (properties) {
                this.entries = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * Descriptor entries.
             * @member {Array.<sluice.v1.Entry.$Properties>} entries
             * @memberof sluice.v1.Descriptor
             * @instance
             */
            Descriptor.prototype.entries = $util.emptyArray;

            /**
             * Creates a new Descriptor instance using the specified properties.
             * @function create
             * @memberof sluice.v1.Descriptor
             * @static
             * @param {sluice.v1.Descriptor.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.Descriptor} Descriptor instance
             * @type {{
             *   (properties: sluice.v1.Descriptor.$Shape): sluice.v1.Descriptor & sluice.v1.Descriptor.$Shape;
             *   (properties?: sluice.v1.Descriptor.$Properties): sluice.v1.Descriptor;
             * }}
             */
            Descriptor.create = function(properties) {
                return new Descriptor(properties);
            };

            /**
             * Encodes the specified Descriptor message. Does not implicitly {@link sluice.v1.Descriptor.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.Descriptor
             * @static
             * @param {sluice.v1.Descriptor.$Properties} message Descriptor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            Descriptor.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.entries != null && message.entries.length)
                    for (let i = 0; i < message.entries.length; ++i)
                        $root.sluice.v1.Entry.encode(message.entries[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a Descriptor message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.Descriptor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.Descriptor & sluice.v1.Descriptor.$Shape} Descriptor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            Descriptor.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.Descriptor();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.entries && message.entries.length))
                                message.entries = [];
                            message.entries.push($root.sluice.v1.Entry.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return Descriptor;
        })();

        v1.CheckRequest = (function() {

            /**
             * Properties of a CheckRequest.
             * @typedef {Object} sluice.v1.CheckRequest.$Properties
             * @property {string|null} [identifier] CheckRequest identifier
             * @property {string|null} [dimension] CheckRequest dimension
             * @property {string|null} [endpoint] CheckRequest endpoint
             * @property {number|null} [cost] CheckRequest cost
             * @property {number|Long|null} [timestamp] CheckRequest timestamp
             * @property {string|null} [domain] CheckRequest domain
             * @property {Array.<sluice.v1.Descriptor.$Properties>|null} [descriptors] CheckRequest descriptors
             * @property {string|null} [idempotency_key] CheckRequest idempotency_key
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CheckRequest.
             * @memberof sluice.v1
             * @interface ICheckRequest
             * @augments sluice.v1.CheckRequest.$Properties
             * @deprecated Use sluice.v1.CheckRequest.$Properties instead.
             */

            /**
             * Shape of a CheckRequest.
             * @typedef {sluice.v1.CheckRequest.$Properties} sluice.v1.CheckRequest.$Shape
             */

            /**
             * Constructs a new CheckRequest.
             * @memberof sluice.v1
             * @classdesc Represents a CheckRequest.
             * @constructor
             * @param {sluice.v1.CheckRequest.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CheckRequest = function (properties) {
                this.descriptors = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CheckRequest identifier.
             * @member {string} identifier
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.identifier = "";

            /**
             * CheckRequest dimension.
             * @member {string} dimension
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.dimension = "";

            /**
             * CheckRequest endpoint.
             * @member {string} endpoint
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.endpoint = "";

            /**
             * CheckRequest cost.
             * @member {number|null|undefined} cost
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.cost = null;

            /**
             * CheckRequest timestamp.
             * @member {number|Long|null|undefined} timestamp
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.timestamp = null;

            /**
             * CheckRequest domain.
             * @member {string} domain
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.domain = "";

            /**
             * CheckRequest descriptors.
             * @member {Array.<sluice.v1.Descriptor.$Properties>} descriptors
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.descriptors = $util.emptyArray;

            /**
             * CheckRequest idempotency_key.
             * @member {string} idempotency_key
             * @memberof sluice.v1.CheckRequest
             * @instance
             */
            CheckRequest.prototype.idempotency_key = "";

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(CheckRequest.prototype, "_cost", {
                get: $util.oneOfGetter($oneOfFields = ["cost"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(CheckRequest.prototype, "_timestamp", {
                get: $util.oneOfGetter($oneOfFields = ["timestamp"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new CheckRequest instance using the specified properties.
             * @function create
             * @memberof sluice.v1.CheckRequest
             * @static
             * @param {sluice.v1.CheckRequest.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.CheckRequest} CheckRequest instance
             * @type {{
             *   (properties: sluice.v1.CheckRequest.$Shape): sluice.v1.CheckRequest & sluice.v1.CheckRequest.$Shape;
             *   (properties?: sluice.v1.CheckRequest.$Properties): sluice.v1.CheckRequest;
             * }}
             */
            CheckRequest.create = function(properties) {
                return new CheckRequest(properties);
            };

            /**
             * Encodes the specified CheckRequest message. Does not implicitly {@link sluice.v1.CheckRequest.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.CheckRequest
             * @static
             * @param {sluice.v1.CheckRequest.$Properties} message CheckRequest message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CheckRequest.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.identifier != null && $Object.hasOwnProperty.call(message, "identifier") && message.identifier !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.identifier);
                if (message.dimension != null && $Object.hasOwnProperty.call(message, "dimension") && message.dimension !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.dimension);
                if (message.endpoint != null && $Object.hasOwnProperty.call(message, "endpoint") && message.endpoint !== "")
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.endpoint);
                if (message.cost != null && $Object.hasOwnProperty.call(message, "cost"))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.cost);
                if (message.timestamp != null && $Object.hasOwnProperty.call(message, "timestamp"))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.timestamp);
                if (message.domain != null && $Object.hasOwnProperty.call(message, "domain") && message.domain !== "")
                    writer.uint32(/* id 6, wireType 2 =*/50).string(message.domain);
                if (message.descriptors != null && message.descriptors.length)
                    for (let i = 0; i < message.descriptors.length; ++i)
                        $root.sluice.v1.Descriptor.encode(message.descriptors[i], writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                if (message.idempotency_key != null && $Object.hasOwnProperty.call(message, "idempotency_key") && message.idempotency_key !== "")
                    writer.uint32(/* id 8, wireType 2 =*/66).string(message.idempotency_key);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CheckRequest message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.CheckRequest
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.CheckRequest & sluice.v1.CheckRequest.$Shape} CheckRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CheckRequest.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.CheckRequest();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.identifier = value;
                            else
                                delete message.identifier;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.dimension = value;
                            else
                                delete message.dimension;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.endpoint = value;
                            else
                                delete message.endpoint;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            message.cost = reader.double();
                            message._cost = "cost";
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            message.timestamp = reader.int64();
                            message._timestamp = "timestamp";
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.domain = value;
                            else
                                delete message.domain;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            if (!(message.descriptors && message.descriptors.length))
                                message.descriptors = [];
                            message.descriptors.push($root.sluice.v1.Descriptor.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 8: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.idempotency_key = value;
                            else
                                delete message.idempotency_key;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CheckRequest;
        })();

        v1.PolicyStatus = (function() {

            /**
             * Properties of a PolicyStatus.
             * @typedef {Object} sluice.v1.PolicyStatus.$Properties
             * @property {string|null} [name] PolicyStatus name
             * @property {boolean|null} [allowed] PolicyStatus allowed
             * @property {number|null} [limit] PolicyStatus limit
             * @property {number|null} [remaining] PolicyStatus remaining
             * @property {number|Long|null} [window_ms] PolicyStatus window_ms
             * @property {number|Long|null} [reset_after_ms] PolicyStatus reset_after_ms
             * @property {number|Long|null} [retry_after_ms] PolicyStatus retry_after_ms
             * @property {string|null} [state] PolicyStatus state
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a PolicyStatus.
             * @memberof sluice.v1
             * @interface IPolicyStatus
             * @augments sluice.v1.PolicyStatus.$Properties
             * @deprecated Use sluice.v1.PolicyStatus.$Properties instead.
             */

            /**
             * Shape of a PolicyStatus.
             * @typedef {sluice.v1.PolicyStatus.$Properties} sluice.v1.PolicyStatus.$Shape
             */

            /**
             * Constructs a new PolicyStatus.
             * @memberof sluice.v1
             * @classdesc Represents a PolicyStatus.
             * @constructor
             * @param {sluice.v1.PolicyStatus.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const PolicyStatus = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * PolicyStatus name.
             * @member {string} name
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.name = "";

            /**
             * PolicyStatus allowed.
             * @member {boolean} allowed
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.allowed = false;

            /**
             * PolicyStatus limit.
             * @member {number} limit
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.limit = 0;

            /**
             * PolicyStatus remaining.
             * @member {number} remaining
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.remaining = 0;

            /**
             * PolicyStatus window_ms.
             * @member {number|Long} window_ms
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.window_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * PolicyStatus reset_after_ms.
             * @member {number|Long} reset_after_ms
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.reset_after_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * PolicyStatus retry_after_ms.
             * @member {number|Long} retry_after_ms
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.retry_after_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * PolicyStatus state.
             * @member {string} state
             * @memberof sluice.v1.PolicyStatus
             * @instance
             */
            PolicyStatus.prototype.state = "";

            /**
             * Creates a new PolicyStatus instance using the specified properties.
             * @function create
             * @memberof sluice.v1.PolicyStatus
             * @static
             * @param {sluice.v1.PolicyStatus.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.PolicyStatus} PolicyStatus instance
             * @type {{
             *   (properties: sluice.v1.PolicyStatus.$Shape): sluice.v1.PolicyStatus & sluice.v1.PolicyStatus.$Shape;
             *   (properties?: sluice.v1.PolicyStatus.$Properties): sluice.v1.PolicyStatus;
             * }}
             */
            PolicyStatus.create = function(properties) {
                return new PolicyStatus(properties);
            };

            /**
             * Encodes the specified PolicyStatus message. Does not implicitly {@link sluice.v1.PolicyStatus.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.PolicyStatus
             * @static
             * @param {sluice.v1.PolicyStatus.$Properties} message PolicyStatus message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            PolicyStatus.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                if (message.allowed != null && $Object.hasOwnProperty.call(message, "allowed") && message.allowed !== false)
                    writer.uint32(/* id 2, wireType 0 =*/16).bool(message.allowed);
                if (message.limit != null && $Object.hasOwnProperty.call(message, "limit") && !$Object.is(message.limit, 0))
                    writer.uint32(/* id 3, wireType 1 =*/25).double(message.limit);
                if (message.remaining != null && $Object.hasOwnProperty.call(message, "remaining") && !$Object.is(message.remaining, 0))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.remaining);
                if (message.window_ms != null && $Object.hasOwnProperty.call(message, "window_ms") && (typeof message.window_ms === "object" ? message.window_ms.low || message.window_ms.high : message.window_ms !== 0))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.window_ms);
                if (message.reset_after_ms != null && $Object.hasOwnProperty.call(message, "reset_after_ms") && (typeof message.reset_after_ms === "object" ? message.reset_after_ms.low || message.reset_after_ms.high : message.reset_after_ms !== 0))
                    writer.uint32(/* id 6, wireType 0 =*/48).int64(message.reset_after_ms);
                if (message.retry_after_ms != null && $Object.hasOwnProperty.call(message, "retry_after_ms") && (typeof message.retry_after_ms === "object" ? message.retry_after_ms.low || message.retry_after_ms.high : message.retry_after_ms !== 0))
                    writer.uint32(/* id 7, wireType 0 =*/56).int64(message.retry_after_ms);
                if (message.state != null && $Object.hasOwnProperty.call(message, "state") && message.state !== "")
                    writer.uint32(/* id 8, wireType 2 =*/66).string(message.state);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a PolicyStatus message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.PolicyStatus
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.PolicyStatus & sluice.v1.PolicyStatus.$Shape} PolicyStatus
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            PolicyStatus.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.PolicyStatus();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.name = value;
                            else
                                delete message.name;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.allowed = value;
                            else
                                delete message.allowed;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.limit = value;
                            else
                                delete message.limit;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.remaining = value;
                            else
                                delete message.remaining;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.window_ms = value;
                            else
                                delete message.window_ms;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_after_ms = value;
                            else
                                delete message.reset_after_ms;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.retry_after_ms = value;
                            else
                                delete message.retry_after_ms;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.state = value;
                            else
                                delete message.state;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return PolicyStatus;
        })();

        v1.DescriptorStatus = (function() {

            /**
             * Properties of a DescriptorStatus.
             * @typedef {Object} sluice.v1.DescriptorStatus.$Properties
             * @property {string|null} [code] DescriptorStatus code
             * @property {string|null} [rule_id] DescriptorStatus rule_id
             * @property {number|null} [limit] DescriptorStatus limit
             * @property {number|null} [remaining] DescriptorStatus remaining
             * @property {number|Long|null} [reset_after_ms] DescriptorStatus reset_after_ms
             * @property {boolean|null} [shadowed] DescriptorStatus shadowed
             * @property {number|Long|null} [delay_ms] DescriptorStatus delay_ms
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DescriptorStatus.
             * @memberof sluice.v1
             * @interface IDescriptorStatus
             * @augments sluice.v1.DescriptorStatus.$Properties
             * @deprecated Use sluice.v1.DescriptorStatus.$Properties instead.
             */

            /**
             * Shape of a DescriptorStatus.
             * @typedef {sluice.v1.DescriptorStatus.$Properties} sluice.v1.DescriptorStatus.$Shape
             */

            /**
             * Constructs a new DescriptorStatus.
             * @memberof sluice.v1
             * @classdesc Represents a DescriptorStatus.
             * @constructor
             * @param {sluice.v1.DescriptorStatus.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DescriptorStatus = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DescriptorStatus code.
             * @member {string} code
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.code = "";

            /**
             * DescriptorStatus rule_id.
             * @member {string} rule_id
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.rule_id = "";

            /**
             * DescriptorStatus limit.
             * @member {number} limit
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.limit = 0;

            /**
             * DescriptorStatus remaining.
             * @member {number} remaining
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.remaining = 0;

            /**
             * DescriptorStatus reset_after_ms.
             * @member {number|Long} reset_after_ms
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.reset_after_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DescriptorStatus shadowed.
             * @member {boolean} shadowed
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.shadowed = false;

            /**
             * DescriptorStatus delay_ms.
             * @member {number|Long} delay_ms
             * @memberof sluice.v1.DescriptorStatus
             * @instance
             */
            DescriptorStatus.prototype.delay_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * Creates a new DescriptorStatus instance using the specified properties.
             * @function create
             * @memberof sluice.v1.DescriptorStatus
             * @static
             * @param {sluice.v1.DescriptorStatus.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.DescriptorStatus} DescriptorStatus instance
             * @type {{
             *   (properties: sluice.v1.DescriptorStatus.$Shape): sluice.v1.DescriptorStatus & sluice.v1.DescriptorStatus.$Shape;
             *   (properties?: sluice.v1.DescriptorStatus.$Properties): sluice.v1.DescriptorStatus;
             * }}
             */
            DescriptorStatus.create = function(properties) {
                return new DescriptorStatus(properties);
            };

            /**
             * Encodes the specified DescriptorStatus message. Does not implicitly {@link sluice.v1.DescriptorStatus.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.DescriptorStatus
             * @static
             * @param {sluice.v1.DescriptorStatus.$Properties} message DescriptorStatus message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DescriptorStatus.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.code != null && $Object.hasOwnProperty.call(message, "code") && message.code !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.code);
                if (message.rule_id != null && $Object.hasOwnProperty.call(message, "rule_id") && message.rule_id !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.rule_id);
                if (message.limit != null && $Object.hasOwnProperty.call(message, "limit") && !$Object.is(message.limit, 0))
                    writer.uint32(/* id 3, wireType 1 =*/25).double(message.limit);
                if (message.remaining != null && $Object.hasOwnProperty.call(message, "remaining") && !$Object.is(message.remaining, 0))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.remaining);
                if (message.reset_after_ms != null && $Object.hasOwnProperty.call(message, "reset_after_ms") && (typeof message.reset_after_ms === "object" ? message.reset_after_ms.low || message.reset_after_ms.high : message.reset_after_ms !== 0))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.reset_after_ms);
                if (message.shadowed != null && $Object.hasOwnProperty.call(message, "shadowed") && message.shadowed !== false)
                    writer.uint32(/* id 6, wireType 0 =*/48).bool(message.shadowed);
                if (message.delay_ms != null && $Object.hasOwnProperty.call(message, "delay_ms") && (typeof message.delay_ms === "object" ? message.delay_ms.low || message.delay_ms.high : message.delay_ms !== 0))
                    writer.uint32(/* id 7, wireType 0 =*/56).int64(message.delay_ms);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DescriptorStatus message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.DescriptorStatus
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.DescriptorStatus & sluice.v1.DescriptorStatus.$Shape} DescriptorStatus
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DescriptorStatus.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.DescriptorStatus();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.code = value;
                            else
                                delete message.code;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.rule_id = value;
                            else
                                delete message.rule_id;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.limit = value;
                            else
                                delete message.limit;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.remaining = value;
                            else
                                delete message.remaining;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_after_ms = value;
                            else
                                delete message.reset_after_ms;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.shadowed = value;
                            else
                                delete message.shadowed;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.delay_ms = value;
                            else
                                delete message.delay_ms;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DescriptorStatus;
        })();

        v1.CheckResponse = (function() {

            /**
             * Properties of a CheckResponse.
             * @typedef {Object} sluice.v1.CheckResponse.$Properties
             * @property {boolean|null} [allowed] CheckResponse allowed
             * @property {number|null} [current_count] CheckResponse current_count
             * @property {number|null} [limit] CheckResponse limit
             * @property {number|null} [remaining] CheckResponse remaining
             * @property {number|Long|null} [reset_at] CheckResponse reset_at
             * @property {number|Long|null} [retry_after] CheckResponse retry_after
             * @property {number|Long|null} [reset_at_ms] CheckResponse reset_at_ms
             * @property {number|Long|null} [retry_after_ms] CheckResponse retry_after_ms
             * @property {number|Long|null} [delay_ms] CheckResponse delay_ms
             * @property {string|null} [state] CheckResponse state
             * @property {boolean|null} [replayed] CheckResponse replayed
             * @property {Array.<sluice.v1.PolicyStatus.$Properties>|null} [policies] CheckResponse policies
             * @property {Array.<sluice.v1.DescriptorStatus.$Properties>|null} [descriptors] CheckResponse descriptors
             * @property {string|null} [reason] CheckResponse reason
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CheckResponse.
             * @memberof sluice.v1
             * @interface ICheckResponse
             * @augments sluice.v1.CheckResponse.$Properties
             * @deprecated Use sluice.v1.CheckResponse.$Properties instead.
             */

            /**
             * Shape of a CheckResponse.
             * @typedef {sluice.v1.CheckResponse.$Properties} sluice.v1.CheckResponse.$Shape
             */

            /**
             * Constructs a new CheckResponse.
             * @memberof sluice.v1
             * @classdesc Represents a CheckResponse.
             * @constructor
             * @param {sluice.v1.CheckResponse.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CheckResponse = function (properties) {
                this.policies = [];
                this.descriptors = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CheckResponse allowed.
             * @member {boolean} allowed
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.allowed = false;

            /**
             * CheckResponse current_count.
             * @member {number} current_count
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.current_count = 0;

            /**
             * CheckResponse limit.
             * @member {number} limit
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.limit = 0;

            /**
             * CheckResponse remaining.
             * @member {number} remaining
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.remaining = 0;

            /**
             * CheckResponse reset_at.
             * @member {number|Long} reset_at
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.reset_at = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * CheckResponse retry_after.
             * @member {number|Long} retry_after
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.retry_after = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * CheckResponse reset_at_ms.
             * @member {number|Long} reset_at_ms
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.reset_at_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * CheckResponse retry_after_ms.
             * @member {number|Long} retry_after_ms
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.retry_after_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * CheckResponse delay_ms.
             * @member {number|Long} delay_ms
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.delay_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * CheckResponse state.
             * @member {string} state
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.state = "";

            /**
             * CheckResponse replayed.
             * @member {boolean} replayed
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.replayed = false;

            /**
             * CheckResponse policies.
             * @member {Array.<sluice.v1.PolicyStatus.$Properties>} policies
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.policies = $util.emptyArray;

            /**
             * CheckResponse descriptors.
             * @member {Array.<sluice.v1.DescriptorStatus.$Properties>} descriptors
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.descriptors = $util.emptyArray;

            /**
             * CheckResponse reason.
             * @member {string} reason
             * @memberof sluice.v1.CheckResponse
             * @instance
             */
            CheckResponse.prototype.reason = "";

            /**
             * Creates a new CheckResponse instance using the specified properties.
             * @function create
             * @memberof sluice.v1.CheckResponse
             * @static
             * @param {sluice.v1.CheckResponse.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.CheckResponse} CheckResponse instance
             * @type {{
             *   (properties: sluice.v1.CheckResponse.$Shape): sluice.v1.CheckResponse & sluice.v1.CheckResponse.$Shape;
             *   (properties?: sluice.v1.CheckResponse.$Properties): sluice.v1.CheckResponse;
             * }}
             */
            CheckResponse.create = function(properties) {
                return new CheckResponse(properties);
            };

            /**
             * Encodes the specified CheckResponse message. Does not implicitly {@link sluice.v1.CheckResponse.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.CheckResponse
             * @static
             * @param {sluice.v1.CheckResponse.$Properties} message CheckResponse message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CheckResponse.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.allowed != null && $Object.hasOwnProperty.call(message, "allowed") && message.allowed !== false)
                    writer.uint32(/* id 1, wireType 0 =*/8).bool(message.allowed);
                if (message.current_count != null && $Object.hasOwnProperty.call(message, "current_count") && !$Object.is(message.current_count, 0))
                    writer.uint32(/* id 2, wireType 1 =*/17).double(message.current_count);
                if (message.limit != null && $Object.hasOwnProperty.call(message, "limit") && !$Object.is(message.limit, 0))
                    writer.uint32(/* id 3, wireType 1 =*/25).double(message.limit);
                if (message.remaining != null && $Object.hasOwnProperty.call(message, "remaining") && !$Object.is(message.remaining, 0))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.remaining);
                if (message.reset_at != null && $Object.hasOwnProperty.call(message, "reset_at") && (typeof message.reset_at === "object" ? message.reset_at.low || message.reset_at.high : message.reset_at !== 0))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.reset_at);
                if (message.retry_after != null && $Object.hasOwnProperty.call(message, "retry_after") && (typeof message.retry_after === "object" ? message.retry_after.low || message.retry_after.high : message.retry_after !== 0))
                    writer.uint32(/* id 6, wireType 0 =*/48).int64(message.retry_after);
                if (message.reset_at_ms != null && $Object.hasOwnProperty.call(message, "reset_at_ms") && (typeof message.reset_at_ms === "object" ? message.reset_at_ms.low || message.reset_at_ms.high : message.reset_at_ms !== 0))
                    writer.uint32(/* id 7, wireType 0 =*/56).int64(message.reset_at_ms);
                if (message.retry_after_ms != null && $Object.hasOwnProperty.call(message, "retry_after_ms") && (typeof message.retry_after_ms === "object" ? message.retry_after_ms.low || message.retry_after_ms.high : message.retry_after_ms !== 0))
                    writer.uint32(/* id 8, wireType 0 =*/64).int64(message.retry_after_ms);
                if (message.delay_ms != null && $Object.hasOwnProperty.call(message, "delay_ms") && (typeof message.delay_ms === "object" ? message.delay_ms.low || message.delay_ms.high : message.delay_ms !== 0))
                    writer.uint32(/* id 9, wireType 0 =*/72).int64(message.delay_ms);
                if (message.state != null && $Object.hasOwnProperty.call(message, "state") && message.state !== "")
                    writer.uint32(/* id 10, wireType 2 =*/82).string(message.state);
                if (message.replayed != null && $Object.hasOwnProperty.call(message, "replayed") && message.replayed !== false)
                    writer.uint32(/* id 11, wireType 0 =*/88).bool(message.replayed);
                if (message.policies != null && message.policies.length)
                    for (let i = 0; i < message.policies.length; ++i)
                        $root.sluice.v1.PolicyStatus.encode(message.policies[i], writer.uint32(/* id 12, wireType 2 =*/98).fork(), _depth + 1).ldelim();
                if (message.descriptors != null && message.descriptors.length)
                    for (let i = 0; i < message.descriptors.length; ++i)
                        $root.sluice.v1.DescriptorStatus.encode(message.descriptors[i], writer.uint32(/* id 13, wireType 2 =*/106).fork(), _depth + 1).ldelim();
                if (message.reason != null && $Object.hasOwnProperty.call(message, "reason") && message.reason !== "")
                    writer.uint32(/* id 14, wireType 2 =*/114).string(message.reason);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CheckResponse message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.CheckResponse
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.CheckResponse & sluice.v1.CheckResponse.$Shape} CheckResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CheckResponse.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.CheckResponse();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.allowed = value;
                            else
                                delete message.allowed;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.current_count = value;
                            else
                                delete message.current_count;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.limit = value;
                            else
                                delete message.limit;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.remaining = value;
                            else
                                delete message.remaining;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_at = value;
                            else
                                delete message.reset_at;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.retry_after = value;
                            else
                                delete message.retry_after;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_at_ms = value;
                            else
                                delete message.reset_at_ms;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.retry_after_ms = value;
                            else
                                delete message.retry_after_ms;
                            continue;
                        }
                    case 9: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.delay_ms = value;
                            else
                                delete message.delay_ms;
                            continue;
                        }
                    case 10: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.state = value;
                            else
                                delete message.state;
                            continue;
                        }
                    case 11: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.replayed = value;
                            else
                                delete message.replayed;
                            continue;
                        }
                    case 12: {
                            if (wireType !== 2)
                                break;
                            if (!(message.policies && message.policies.length))
                                message.policies = [];
                            message.policies.push($root.sluice.v1.PolicyStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 13: {
                            if (wireType !== 2)
                                break;
                            if (!(message.descriptors && message.descriptors.length))
                                message.descriptors = [];
                            message.descriptors.push($root.sluice.v1.DescriptorStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 14: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.reason = value;
                            else
                                delete message.reason;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CheckResponse;
        })();

        v1.CheckBatchRequest = (function() {

            /**
             * Properties of a CheckBatchRequest.
             * @typedef {Object} sluice.v1.CheckBatchRequest.$Properties
             * @property {Array.<sluice.v1.CheckRequest.$Properties>|null} [items] CheckBatchRequest items
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CheckBatchRequest.
             * @memberof sluice.v1
             * @interface ICheckBatchRequest
             * @augments sluice.v1.CheckBatchRequest.$Properties
             * @deprecated Use sluice.v1.CheckBatchRequest.$Properties instead.
             */

            /**
             * Shape of a CheckBatchRequest.
             * @typedef {sluice.v1.CheckBatchRequest.$Properties} sluice.v1.CheckBatchRequest.$Shape
             */

            /**
             * Constructs a new CheckBatchRequest.
             * @memberof sluice.v1
             * @classdesc Represents a CheckBatchRequest.
             * @constructor
             * @param {sluice.v1.CheckBatchRequest.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CheckBatchRequest = function (properties) {
                this.items = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CheckBatchRequest items.
             * @member {Array.<sluice.v1.CheckRequest.$Properties>} items
             * @memberof sluice.v1.CheckBatchRequest
             * @instance
             */
            CheckBatchRequest.prototype.items = $util.emptyArray;

            /**
             * Creates a new CheckBatchRequest instance using the specified properties.
             * @function create
             * @memberof sluice.v1.CheckBatchRequest
             * @static
             * @param {sluice.v1.CheckBatchRequest.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.CheckBatchRequest} CheckBatchRequest instance
             * @type {{
             *   (properties: sluice.v1.CheckBatchRequest.$Shape): sluice.v1.CheckBatchRequest & sluice.v1.CheckBatchRequest.$Shape;
             *   (properties?: sluice.v1.CheckBatchRequest.$Properties): sluice.v1.CheckBatchRequest;
             * }}
             */
            CheckBatchRequest.create = function(properties) {
                return new CheckBatchRequest(properties);
            };

            /**
             * Encodes the specified CheckBatchRequest message. Does not implicitly {@link sluice.v1.CheckBatchRequest.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.CheckBatchRequest
             * @static
             * @param {sluice.v1.CheckBatchRequest.$Properties} message CheckBatchRequest message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CheckBatchRequest.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.items != null && message.items.length)
                    for (let i = 0; i < message.items.length; ++i)
                        $root.sluice.v1.CheckRequest.encode(message.items[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CheckBatchRequest message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.CheckBatchRequest
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchRequest & sluice.v1.CheckBatchRequest.$Shape} CheckBatchRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CheckBatchRequest.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.CheckBatchRequest();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.items && message.items.length))
                                message.items = [];
                            message.items.push($root.sluice.v1.CheckRequest.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CheckBatchRequest;
        })();

        v1.ItemError = (function() {

            /**
             * Properties of an ItemError.
             * @typedef {Object} sluice.v1.ItemError.$Properties
             * @property {number|null} [code] ItemError code
             * @property {string|null} [message] ItemError message
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an ItemError.
             * @memberof sluice.v1
             * @interface IItemError
             * @augments sluice.v1.ItemError.$Properties
             * @deprecated Use sluice.v1.ItemError.$Properties instead.
             */

            /**
             * Shape of an ItemError.
             * @typedef {sluice.v1.ItemError.$Properties} sluice.v1.ItemError.$Shape
             */

            /**
             * Constructs a new ItemError.
             * @memberof sluice.v1
             * @classdesc Represents an ItemError.
             * @constructor
             * @param {sluice.v1.ItemError.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const ItemError = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * ItemError code.
             * @member {number} code
             * @memberof sluice.v1.ItemError
             * @instance
             */
            ItemError.prototype.code = 0;

            /**
             * ItemError message.
             * @member {string} message
             * @memberof sluice.v1.ItemError
             * @instance
             */
            ItemError.prototype.message = "";

            /**
             * Creates a new ItemError instance using the specified properties.
             * @function create
             * @memberof sluice.v1.ItemError
             * @static
             * @param {sluice.v1.ItemError.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.ItemError} ItemError instance
             * @type {{
             *   (properties: sluice.v1.ItemError.$Shape): sluice.v1.ItemError & sluice.v1.ItemError.$Shape;
             *   (properties?: sluice.v1.ItemError.$Properties): sluice.v1.ItemError;
             * }}
             */
            ItemError.create = function(properties) {
                return new ItemError(properties);
            };

            /**
             * Encodes the specified ItemError message. Does not implicitly {@link sluice.v1.ItemError.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.ItemError
             * @static
             * @param {sluice.v1.ItemError.$Properties} message ItemError message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            ItemError.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.code != null && $Object.hasOwnProperty.call(message, "code") && message.code !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).int32(message.code);
                if (message.message != null && $Object.hasOwnProperty.call(message, "message") && message.message !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.message);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an ItemError message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.ItemError
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.ItemError & sluice.v1.ItemError.$Shape} ItemError
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            ItemError.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.ItemError();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.code = value;
                            else
                                delete message.code;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.message = value;
                            else
                                delete message.message;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return ItemError;
        })();

        v1.CheckBatchResult = (function() {

            /**
             * Properties of a CheckBatchResult.
             * @typedef {Object} sluice.v1.CheckBatchResult.$Properties
             * @property {sluice.v1.CheckResponse.$Properties|null} [response] CheckBatchResult response
             * @property {sluice.v1.ItemError.$Properties|null} [error] CheckBatchResult error
             * @property {"response"|"error"} [result] CheckBatchResult result
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CheckBatchResult.
             * @memberof sluice.v1
             * @interface ICheckBatchResult
             * @augments sluice.v1.CheckBatchResult.$Properties
             * @deprecated Use sluice.v1.CheckBatchResult.$Properties instead.
             */

            /**
             * Narrowed shape of a CheckBatchResult.
             * @typedef {{
             *   response?: sluice.v1.CheckResponse.$Shape|null;
             *   error?: sluice.v1.ItemError.$Shape|null;
             *   $unknowns?: Array.<Uint8Array>;
             * } & (
             *   ({ result?: undefined; response?: null; error?: null }|{ result?: "response"; response: sluice.v1.CheckResponse.$Shape; error?: null }|{ result?: "error"; response?: null; error: sluice.v1.ItemError.$Shape })
             * )} sluice.v1.CheckBatchResult.$Shape
             */

            /**
             * Constructs a new CheckBatchResult.
             * @memberof sluice.v1
             * @classdesc Represents a CheckBatchResult.
             * @constructor
             * @param {sluice.v1.CheckBatchResult.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CheckBatchResult = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CheckBatchResult response.
             * @member {sluice.v1.CheckResponse.$Properties|null|undefined} response
             * @memberof sluice.v1.CheckBatchResult
             * @instance
             */
            CheckBatchResult.prototype.response = null;

            /**
             * CheckBatchResult error.
             * @member {sluice.v1.ItemError.$Properties|null|undefined} error
             * @memberof sluice.v1.CheckBatchResult
             * @instance
             */
            CheckBatchResult.prototype.error = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            /**
             * CheckBatchResult result.
             * @member {"response"|"error"|undefined} result
             * @memberof sluice.v1.CheckBatchResult
             * @instance
             */
            $Object.defineProperty(CheckBatchResult.prototype, "result", {
                get: $util.oneOfGetter($oneOfFields = ["response", "error"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new CheckBatchResult instance using the specified properties.
             * @function create
             * @memberof sluice.v1.CheckBatchResult
             * @static
             * @param {sluice.v1.CheckBatchResult.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.CheckBatchResult} CheckBatchResult instance
             * @type {{
             *   (properties: sluice.v1.CheckBatchResult.$Shape): sluice.v1.CheckBatchResult & sluice.v1.CheckBatchResult.$Shape;
             *   (properties?: sluice.v1.CheckBatchResult.$Properties): sluice.v1.CheckBatchResult;
             * }}
             */
            CheckBatchResult.create = function(properties) {
                return new CheckBatchResult(properties);
            };

            /**
             * Encodes the specified CheckBatchResult message. Does not implicitly {@link sluice.v1.CheckBatchResult.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.CheckBatchResult
             * @static
             * @param {sluice.v1.CheckBatchResult.$Properties} message CheckBatchResult message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CheckBatchResult.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.response != null && $Object.hasOwnProperty.call(message, "response"))
                    $root.sluice.v1.CheckResponse.encode(message.response, writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.error != null && $Object.hasOwnProperty.call(message, "error"))
                    $root.sluice.v1.ItemError.encode(message.error, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CheckBatchResult message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.CheckBatchResult
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchResult & sluice.v1.CheckBatchResult.$Shape} CheckBatchResult
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CheckBatchResult.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.CheckBatchResult();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            message.response = $root.sluice.v1.CheckResponse.decode(reader, reader.size(), $undefined, _depth + 1, message.response);
                            message.result = "response";
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            message.error = $root.sluice.v1.ItemError.decode(reader, reader.size(), $undefined, _depth + 1, message.error);
                            message.result = "error";
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CheckBatchResult;
        })();

        v1.CheckBatchResponse = (function() {

            /**
             * Properties of a CheckBatchResponse.
             * @typedef {Object} sluice.v1.CheckBatchResponse.$Properties
             * @property {Array.<sluice.v1.CheckBatchResult.$Properties>|null} [results] CheckBatchResponse results
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CheckBatchResponse.
             * @memberof sluice.v1
             * @interface ICheckBatchResponse
             * @augments sluice.v1.CheckBatchResponse.$Properties
             * @deprecated Use sluice.v1.CheckBatchResponse.$Properties instead.
             */

            /**
             * Shape of a CheckBatchResponse.
             * @typedef {{
             *   results?: Array.<sluice.v1.CheckBatchResult.$Shape>|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} sluice.v1.CheckBatchResponse.$Shape
             */

            /**
             * Constructs a new CheckBatchResponse.
             * @memberof sluice.v1
             * @classdesc Represents a CheckBatchResponse.
             * @constructor
             * @param {sluice.v1.CheckBatchResponse.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CheckBatchResponse = function (properties) {
                this.results = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CheckBatchResponse results.
             * @member {Array.<sluice.v1.CheckBatchResult.$Properties>} results
             * @memberof sluice.v1.CheckBatchResponse
             * @instance
             */
            CheckBatchResponse.prototype.results = $util.emptyArray;

            /**
             * Creates a new CheckBatchResponse instance using the specified properties.
             * @function create
             * @memberof sluice.v1.CheckBatchResponse
             * @static
             * @param {sluice.v1.CheckBatchResponse.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.CheckBatchResponse} CheckBatchResponse instance
             * @type {{
             *   (properties: sluice.v1.CheckBatchResponse.$Shape): sluice.v1.CheckBatchResponse & sluice.v1.CheckBatchResponse.$Shape;
             *   (properties?: sluice.v1.CheckBatchResponse.$Properties): sluice.v1.CheckBatchResponse;
             * }}
             */
            CheckBatchResponse.create = function(properties) {
                return new CheckBatchResponse(properties);
            };

            /**
             * Encodes the specified CheckBatchResponse message. Does not implicitly {@link sluice.v1.CheckBatchResponse.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.CheckBatchResponse
             * @static
             * @param {sluice.v1.CheckBatchResponse.$Properties} message CheckBatchResponse message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CheckBatchResponse.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.results != null && message.results.length)
                    for (let i = 0; i < message.results.length; ++i)
                        $root.sluice.v1.CheckBatchResult.encode(message.results[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CheckBatchResponse message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.CheckBatchResponse
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.CheckBatchResponse & sluice.v1.CheckBatchResponse.$Shape} CheckBatchResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CheckBatchResponse.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.CheckBatchResponse();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.results && message.results.length))
                                message.results = [];
                            message.results.push($root.sluice.v1.CheckBatchResult.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CheckBatchResponse;
        })();

        v1.QuotaRequest = (function() {

            /**
             * Properties of a QuotaRequest.
             * @typedef {Object} sluice.v1.QuotaRequest.$Properties
             * @property {string|null} [identifier] QuotaRequest identifier
             * @property {string|null} [dimension] QuotaRequest dimension
             * @property {string|null} [endpoint] QuotaRequest endpoint
             * @property {number|Long|null} [timestamp] QuotaRequest timestamp
             * @property {string|null} [domain] QuotaRequest domain
             * @property {Array.<sluice.v1.Descriptor.$Properties>|null} [descriptors] QuotaRequest descriptors
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a QuotaRequest.
             * @memberof sluice.v1
             * @interface IQuotaRequest
             * @augments sluice.v1.QuotaRequest.$Properties
             * @deprecated Use sluice.v1.QuotaRequest.$Properties instead.
             */

            /**
             * Shape of a QuotaRequest.
             * @typedef {sluice.v1.QuotaRequest.$Properties} sluice.v1.QuotaRequest.$Shape
             */

            /**
             * Constructs a new QuotaRequest.
             * @memberof sluice.v1
             * @classdesc Represents a QuotaRequest.
             * @constructor
             * @param {sluice.v1.QuotaRequest.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const QuotaRequest = function (properties) {
                this.descriptors = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * QuotaRequest identifier.
             * @member {string} identifier
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.identifier = "";

            /**
             * QuotaRequest dimension.
             * @member {string} dimension
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.dimension = "";

            /**
             * QuotaRequest endpoint.
             * @member {string} endpoint
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.endpoint = "";

            /**
             * QuotaRequest timestamp.
             * @member {number|Long|null|undefined} timestamp
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.timestamp = null;

            /**
             * QuotaRequest domain.
             * @member {string} domain
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.domain = "";

            /**
             * QuotaRequest descriptors.
             * @member {Array.<sluice.v1.Descriptor.$Properties>} descriptors
             * @memberof sluice.v1.QuotaRequest
             * @instance
             */
            QuotaRequest.prototype.descriptors = $util.emptyArray;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(QuotaRequest.prototype, "_timestamp", {
                get: $util.oneOfGetter($oneOfFields = ["timestamp"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new QuotaRequest instance using the specified properties.
             * @function create
             * @memberof sluice.v1.QuotaRequest
             * @static
             * @param {sluice.v1.QuotaRequest.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.QuotaRequest} QuotaRequest instance
             * @type {{
             *   (properties: sluice.v1.QuotaRequest.$Shape): sluice.v1.QuotaRequest & sluice.v1.QuotaRequest.$Shape;
             *   (properties?: sluice.v1.QuotaRequest.$Properties): sluice.v1.QuotaRequest;
             * }}
             */
            QuotaRequest.create = function(properties) {
                return new QuotaRequest(properties);
            };

            /**
             * Encodes the specified QuotaRequest message. Does not implicitly {@link sluice.v1.QuotaRequest.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.QuotaRequest
             * @static
             * @param {sluice.v1.QuotaRequest.$Properties} message QuotaRequest message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            QuotaRequest.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.identifier != null && $Object.hasOwnProperty.call(message, "identifier") && message.identifier !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.identifier);
                if (message.dimension != null && $Object.hasOwnProperty.call(message, "dimension") && message.dimension !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.dimension);
                if (message.endpoint != null && $Object.hasOwnProperty.call(message, "endpoint") && message.endpoint !== "")
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.endpoint);
                if (message.timestamp != null && $Object.hasOwnProperty.call(message, "timestamp"))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.timestamp);
                if (message.domain != null && $Object.hasOwnProperty.call(message, "domain") && message.domain !== "")
                    writer.uint32(/* id 6, wireType 2 =*/50).string(message.domain);
                if (message.descriptors != null && message.descriptors.length)
                    for (let i = 0; i < message.descriptors.length; ++i)
                        $root.sluice.v1.Descriptor.encode(message.descriptors[i], writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a QuotaRequest message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.QuotaRequest
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.QuotaRequest & sluice.v1.QuotaRequest.$Shape} QuotaRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            QuotaRequest.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.QuotaRequest();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.identifier = value;
                            else
                                delete message.identifier;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.dimension = value;
                            else
                                delete message.dimension;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.endpoint = value;
                            else
                                delete message.endpoint;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            message.timestamp = reader.int64();
                            message._timestamp = "timestamp";
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.domain = value;
                            else
                                delete message.domain;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            if (!(message.descriptors && message.descriptors.length))
                                message.descriptors = [];
                            message.descriptors.push($root.sluice.v1.Descriptor.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return QuotaRequest;
        })();

        v1.QuotaResponse = (function() {

            /**
             * Properties of a QuotaResponse.
             * @typedef {Object} sluice.v1.QuotaResponse.$Properties
             * @property {boolean|null} [allowed] QuotaResponse allowed
             * @property {number|null} [current_count] QuotaResponse current_count
             * @property {number|null} [limit] QuotaResponse limit
             * @property {number|null} [remaining] QuotaResponse remaining
             * @property {number|Long|null} [reset_at] QuotaResponse reset_at
             * @property {number|Long|null} [retry_after] QuotaResponse retry_after
             * @property {number|Long|null} [reset_at_ms] QuotaResponse reset_at_ms
             * @property {number|Long|null} [retry_after_ms] QuotaResponse retry_after_ms
             * @property {number|Long|null} [delay_ms] QuotaResponse delay_ms
             * @property {string|null} [state] QuotaResponse state
             * @property {boolean|null} [replayed] QuotaResponse replayed
             * @property {Array.<sluice.v1.PolicyStatus.$Properties>|null} [policies] QuotaResponse policies
             * @property {Array.<sluice.v1.DescriptorStatus.$Properties>|null} [descriptors] QuotaResponse descriptors
             * @property {string|null} [reason] QuotaResponse reason
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a QuotaResponse.
             * @memberof sluice.v1
             * @interface IQuotaResponse
             * @augments sluice.v1.QuotaResponse.$Properties
             * @deprecated Use sluice.v1.QuotaResponse.$Properties instead.
             */

            /**
             * Shape of a QuotaResponse.
             * @typedef {sluice.v1.QuotaResponse.$Properties} sluice.v1.QuotaResponse.$Shape
             */

            /**
             * Constructs a new QuotaResponse.
             * @memberof sluice.v1
             * @classdesc Represents a QuotaResponse.
             * @constructor
             * @param {sluice.v1.QuotaResponse.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const QuotaResponse = function (properties) {
                this.policies = [];
                this.descriptors = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * QuotaResponse allowed.
             * @member {boolean} allowed
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.allowed = false;

            /**
             * QuotaResponse current_count.
             * @member {number} current_count
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.current_count = 0;

            /**
             * QuotaResponse limit.
             * @member {number} limit
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.limit = 0;

            /**
             * QuotaResponse remaining.
             * @member {number} remaining
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.remaining = 0;

            /**
             * QuotaResponse reset_at.
             * @member {number|Long} reset_at
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.reset_at = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * QuotaResponse retry_after.
             * @member {number|Long} retry_after
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.retry_after = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * QuotaResponse reset_at_ms.
             * @member {number|Long} reset_at_ms
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.reset_at_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * QuotaResponse retry_after_ms.
             * @member {number|Long} retry_after_ms
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.retry_after_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * QuotaResponse delay_ms.
             * @member {number|Long} delay_ms
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.delay_ms = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * QuotaResponse state.
             * @member {string} state
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.state = "";

            /**
             * QuotaResponse replayed.
             * @member {boolean} replayed
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.replayed = false;

            /**
             * QuotaResponse policies.
             * @member {Array.<sluice.v1.PolicyStatus.$Properties>} policies
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.policies = $util.emptyArray;

            /**
             * QuotaResponse descriptors.
             * @member {Array.<sluice.v1.DescriptorStatus.$Properties>} descriptors
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.descriptors = $util.emptyArray;

            /**
             * QuotaResponse reason.
             * @member {string} reason
             * @memberof sluice.v1.QuotaResponse
             * @instance
             */
            QuotaResponse.prototype.reason = "";

            /**
             * Creates a new QuotaResponse instance using the specified properties.
             * @function create
             * @memberof sluice.v1.QuotaResponse
             * @static
             * @param {sluice.v1.QuotaResponse.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.QuotaResponse} QuotaResponse instance
             * @type {{
             *   (properties: sluice.v1.QuotaResponse.$Shape): sluice.v1.QuotaResponse & sluice.v1.QuotaResponse.$Shape;
             *   (properties?: sluice.v1.QuotaResponse.$Properties): sluice.v1.QuotaResponse;
             * }}
             */
            QuotaResponse.create = function(properties) {
                return new QuotaResponse(properties);
            };

            /**
             * Encodes the specified QuotaResponse message. Does not implicitly {@link sluice.v1.QuotaResponse.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.QuotaResponse
             * @static
             * @param {sluice.v1.QuotaResponse.$Properties} message QuotaResponse message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            QuotaResponse.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.allowed != null && $Object.hasOwnProperty.call(message, "allowed") && message.allowed !== false)
                    writer.uint32(/* id 1, wireType 0 =*/8).bool(message.allowed);
                if (message.current_count != null && $Object.hasOwnProperty.call(message, "current_count") && !$Object.is(message.current_count, 0))
                    writer.uint32(/* id 2, wireType 1 =*/17).double(message.current_count);
                if (message.limit != null && $Object.hasOwnProperty.call(message, "limit") && !$Object.is(message.limit, 0))
                    writer.uint32(/* id 3, wireType 1 =*/25).double(message.limit);
                if (message.remaining != null && $Object.hasOwnProperty.call(message, "remaining") && !$Object.is(message.remaining, 0))
                    writer.uint32(/* id 4, wireType 1 =*/33).double(message.remaining);
                if (message.reset_at != null && $Object.hasOwnProperty.call(message, "reset_at") && (typeof message.reset_at === "object" ? message.reset_at.low || message.reset_at.high : message.reset_at !== 0))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.reset_at);
                if (message.retry_after != null && $Object.hasOwnProperty.call(message, "retry_after") && (typeof message.retry_after === "object" ? message.retry_after.low || message.retry_after.high : message.retry_after !== 0))
                    writer.uint32(/* id 6, wireType 0 =*/48).int64(message.retry_after);
                if (message.reset_at_ms != null && $Object.hasOwnProperty.call(message, "reset_at_ms") && (typeof message.reset_at_ms === "object" ? message.reset_at_ms.low || message.reset_at_ms.high : message.reset_at_ms !== 0))
                    writer.uint32(/* id 7, wireType 0 =*/56).int64(message.reset_at_ms);
                if (message.retry_after_ms != null && $Object.hasOwnProperty.call(message, "retry_after_ms") && (typeof message.retry_after_ms === "object" ? message.retry_after_ms.low || message.retry_after_ms.high : message.retry_after_ms !== 0))
                    writer.uint32(/* id 8, wireType 0 =*/64).int64(message.retry_after_ms);
                if (message.delay_ms != null && $Object.hasOwnProperty.call(message, "delay_ms") && (typeof message.delay_ms === "object" ? message.delay_ms.low || message.delay_ms.high : message.delay_ms !== 0))
                    writer.uint32(/* id 9, wireType 0 =*/72).int64(message.delay_ms);
                if (message.state != null && $Object.hasOwnProperty.call(message, "state") && message.state !== "")
                    writer.uint32(/* id 10, wireType 2 =*/82).string(message.state);
                if (message.replayed != null && $Object.hasOwnProperty.call(message, "replayed") && message.replayed !== false)
                    writer.uint32(/* id 11, wireType 0 =*/88).bool(message.replayed);
                if (message.policies != null && message.policies.length)
                    for (let i = 0; i < message.policies.length; ++i)
                        $root.sluice.v1.PolicyStatus.encode(message.policies[i], writer.uint32(/* id 12, wireType 2 =*/98).fork(), _depth + 1).ldelim();
                if (message.descriptors != null && message.descriptors.length)
                    for (let i = 0; i < message.descriptors.length; ++i)
                        $root.sluice.v1.DescriptorStatus.encode(message.descriptors[i], writer.uint32(/* id 13, wireType 2 =*/106).fork(), _depth + 1).ldelim();
                if (message.reason != null && $Object.hasOwnProperty.call(message, "reason") && message.reason !== "")
                    writer.uint32(/* id 14, wireType 2 =*/114).string(message.reason);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a QuotaResponse message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.QuotaResponse
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.QuotaResponse & sluice.v1.QuotaResponse.$Shape} QuotaResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            QuotaResponse.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.QuotaResponse();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.allowed = value;
                            else
                                delete message.allowed;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.current_count = value;
                            else
                                delete message.current_count;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.limit = value;
                            else
                                delete message.limit;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 1)
                                break;
                            if (!$Object.is(value = reader.double(), 0))
                                message.remaining = value;
                            else
                                delete message.remaining;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_at = value;
                            else
                                delete message.reset_at;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.retry_after = value;
                            else
                                delete message.retry_after;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.reset_at_ms = value;
                            else
                                delete message.reset_at_ms;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.retry_after_ms = value;
                            else
                                delete message.retry_after_ms;
                            continue;
                        }
                    case 9: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.delay_ms = value;
                            else
                                delete message.delay_ms;
                            continue;
                        }
                    case 10: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.state = value;
                            else
                                delete message.state;
                            continue;
                        }
                    case 11: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.bool())
                                message.replayed = value;
                            else
                                delete message.replayed;
                            continue;
                        }
                    case 12: {
                            if (wireType !== 2)
                                break;
                            if (!(message.policies && message.policies.length))
                                message.policies = [];
                            message.policies.push($root.sluice.v1.PolicyStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 13: {
                            if (wireType !== 2)
                                break;
                            if (!(message.descriptors && message.descriptors.length))
                                message.descriptors = [];
                            message.descriptors.push($root.sluice.v1.DescriptorStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 14: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.reason = value;
                            else
                                delete message.reason;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return QuotaResponse;
        })();

        v1.ResetRequest = (function() {

            /**
             * Properties of a ResetRequest.
             * @typedef {Object} sluice.v1.ResetRequest.$Properties
             * @property {string|null} [identifier] ResetRequest identifier
             * @property {string|null} [dimension] ResetRequest dimension
             * @property {string|null} [endpoint] ResetRequest endpoint
             * @property {string|null} [domain] ResetRequest domain
             * @property {Array.<sluice.v1.Descriptor.$Properties>|null} [descriptors] ResetRequest descriptors
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a ResetRequest.
             * @memberof sluice.v1
             * @interface IResetRequest
             * @augments sluice.v1.ResetRequest.$Properties
             * @deprecated Use sluice.v1.ResetRequest.$Properties instead.
             */

            /**
             * Shape of a ResetRequest.
             * @typedef {sluice.v1.ResetRequest.$Properties} sluice.v1.ResetRequest.$Shape
             */

            /**
             * Constructs a new ResetRequest.
             * @memberof sluice.v1
             * @classdesc Represents a ResetRequest.
             * @constructor
             * @param {sluice.v1.ResetRequest.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const ResetRequest = function (properties) {
                this.descriptors = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * ResetRequest identifier.
             * @member {string} identifier
             * @memberof sluice.v1.ResetRequest
             * @instance
             */
            ResetRequest.prototype.identifier = "";

            /**
             * ResetRequest dimension.
             * @member {string} dimension
             * @memberof sluice.v1.ResetRequest
             * @instance
             */
            ResetRequest.prototype.dimension = "";

            /**
             * ResetRequest endpoint.
             * @member {string} endpoint
             * @memberof sluice.v1.ResetRequest
             * @instance
             */
            ResetRequest.prototype.endpoint = "";

            /**
             * ResetRequest domain.
             * @member {string} domain
             * @memberof sluice.v1.ResetRequest
             * @instance
             */
            ResetRequest.prototype.domain = "";

            /**
             * ResetRequest descriptors.
             * @member {Array.<sluice.v1.Descriptor.$Properties>} descriptors
             * @memberof sluice.v1.ResetRequest
             * @instance
             */
            ResetRequest.prototype.descriptors = $util.emptyArray;

            /**
             * Creates a new ResetRequest instance using the specified properties.
             * @function create
             * @memberof sluice.v1.ResetRequest
             * @static
             * @param {sluice.v1.ResetRequest.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.ResetRequest} ResetRequest instance
             * @type {{
             *   (properties: sluice.v1.ResetRequest.$Shape): sluice.v1.ResetRequest & sluice.v1.ResetRequest.$Shape;
             *   (properties?: sluice.v1.ResetRequest.$Properties): sluice.v1.ResetRequest;
             * }}
             */
            ResetRequest.create = function(properties) {
                return new ResetRequest(properties);
            };

            /**
             * Encodes the specified ResetRequest message. Does not implicitly {@link sluice.v1.ResetRequest.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.ResetRequest
             * @static
             * @param {sluice.v1.ResetRequest.$Properties} message ResetRequest message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            ResetRequest.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.identifier != null && $Object.hasOwnProperty.call(message, "identifier") && message.identifier !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.identifier);
                if (message.dimension != null && $Object.hasOwnProperty.call(message, "dimension") && message.dimension !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.dimension);
                if (message.endpoint != null && $Object.hasOwnProperty.call(message, "endpoint") && message.endpoint !== "")
                    writer.uint32(/* id 3, wireType 2 =*/26).string(message.endpoint);
                if (message.domain != null && $Object.hasOwnProperty.call(message, "domain") && message.domain !== "")
                    writer.uint32(/* id 6, wireType 2 =*/50).string(message.domain);
                if (message.descriptors != null && message.descriptors.length)
                    for (let i = 0; i < message.descriptors.length; ++i)
                        $root.sluice.v1.Descriptor.encode(message.descriptors[i], writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a ResetRequest message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.ResetRequest
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.ResetRequest & sluice.v1.ResetRequest.$Shape} ResetRequest
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            ResetRequest.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.ResetRequest();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.identifier = value;
                            else
                                delete message.identifier;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.dimension = value;
                            else
                                delete message.dimension;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.endpoint = value;
                            else
                                delete message.endpoint;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.domain = value;
                            else
                                delete message.domain;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            if (!(message.descriptors && message.descriptors.length))
                                message.descriptors = [];
                            message.descriptors.push($root.sluice.v1.Descriptor.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return ResetRequest;
        })();

        v1.ResetResponse = (function() {

            /**
             * Properties of a ResetResponse.
             * @typedef {Object} sluice.v1.ResetResponse.$Properties
             * @property {number|null} [counters] ResetResponse counters
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a ResetResponse.
             * @memberof sluice.v1
             * @interface IResetResponse
             * @augments sluice.v1.ResetResponse.$Properties
             * @deprecated Use sluice.v1.ResetResponse.$Properties instead.
             */

            /**
             * Shape of a ResetResponse.
             * @typedef {sluice.v1.ResetResponse.$Properties} sluice.v1.ResetResponse.$Shape
             */

            /**
             * Constructs a new ResetResponse.
             * @memberof sluice.v1
             * @classdesc Represents a ResetResponse.
             * @constructor
             * @param {sluice.v1.ResetResponse.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const ResetResponse = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * ResetResponse counters.
             * @member {number} counters
             * @memberof sluice.v1.ResetResponse
             * @instance
             */
            ResetResponse.prototype.counters = 0;

            /**
             * Creates a new ResetResponse instance using the specified properties.
             * @function create
             * @memberof sluice.v1.ResetResponse
             * @static
             * @param {sluice.v1.ResetResponse.$Properties=} [properties] Properties to set
             * @returns {sluice.v1.ResetResponse} ResetResponse instance
             * @type {{
             *   (properties: sluice.v1.ResetResponse.$Shape): sluice.v1.ResetResponse & sluice.v1.ResetResponse.$Shape;
             *   (properties?: sluice.v1.ResetResponse.$Properties): sluice.v1.ResetResponse;
             * }}
             */
            ResetResponse.create = function(properties) {
                return new ResetResponse(properties);
            };

            /**
             * Encodes the specified ResetResponse message. Does not implicitly {@link sluice.v1.ResetResponse.verify|verify} messages.
             * @function encode
             * @memberof sluice.v1.ResetResponse
             * @static
             * @param {sluice.v1.ResetResponse.$Properties} message ResetResponse message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            ResetResponse.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.counters != null && $Object.hasOwnProperty.call(message, "counters") && message.counters !== 0)
                    writer.uint32(/* id 1, wireType 0 =*/8).uint32(message.counters);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a ResetResponse message from the specified reader or buffer.
             * @function decode
             * @memberof sluice.v1.ResetResponse
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {sluice.v1.ResetResponse & sluice.v1.ResetResponse.$Shape} ResetResponse
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            ResetResponse.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.sluice.v1.ResetResponse();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.counters = value;
                            else
                                delete message.counters;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return ResetResponse;
        })();

        return v1;
    })();

    return sluice;
})();

export const grpc = $root.grpc = (() => {

    /**
     * Namespace grpc.
     * @exports grpc
     * @namespace
     */
    const grpc = {};

    grpc.health = (function() {

        /**
         * Namespace health.
         * @memberof grpc
         * @namespace
         */
        const health = {};

        health.v1 = (function() {

            /**
             * Namespace v1.
             * @memberof grpc.health
             * @namespace
             */
            const v1 = {};

            v1.HealthCheckRequest = (function() {

                /**
                 * Properties of a HealthCheckRequest.
                 * @typedef {Object} grpc.health.v1.HealthCheckRequest.$Properties
                 * @property {string|null} [service] HealthCheckRequest service
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a HealthCheckRequest.
                 * @memberof grpc.health.v1
                 * @interface IHealthCheckRequest
                 * @augments grpc.health.v1.HealthCheckRequest.$Properties
                 * @deprecated Use grpc.health.v1.HealthCheckRequest.$Properties instead.
                 */

                /**
                 * Shape of a HealthCheckRequest.
                 * @typedef {grpc.health.v1.HealthCheckRequest.$Properties} grpc.health.v1.HealthCheckRequest.$Shape
                 */

                /**
                 * Constructs a new HealthCheckRequest.
                 * @memberof grpc.health.v1
                 * @classdesc Represents a HealthCheckRequest.
                 * @constructor
                 * @param {grpc.health.v1.HealthCheckRequest.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const HealthCheckRequest = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * HealthCheckRequest service.
                 * @member {string} service
                 * @memberof grpc.health.v1.HealthCheckRequest
                 * @instance
                 */
                HealthCheckRequest.prototype.service = "";

                /**
                 * Creates a new HealthCheckRequest instance using the specified properties.
                 * @function create
                 * @memberof grpc.health.v1.HealthCheckRequest
                 * @static
                 * @param {grpc.health.v1.HealthCheckRequest.$Properties=} [properties] Properties to set
                 * @returns {grpc.health.v1.HealthCheckRequest} HealthCheckRequest instance
                 * @type {{
                 *   (properties: grpc.health.v1.HealthCheckRequest.$Shape): grpc.health.v1.HealthCheckRequest & grpc.health.v1.HealthCheckRequest.$Shape;
                 *   (properties?: grpc.health.v1.HealthCheckRequest.$Properties): grpc.health.v1.HealthCheckRequest;
                 * }}
                 */
                HealthCheckRequest.create = function(properties) {
                    return new HealthCheckRequest(properties);
                };

                /**
                 * Encodes the specified HealthCheckRequest message. Does not implicitly {@link grpc.health.v1.HealthCheckRequest.verify|verify} messages.
                 * @function encode
                 * @memberof grpc.health.v1.HealthCheckRequest
                 * @static
                 * @param {grpc.health.v1.HealthCheckRequest.$Properties} message HealthCheckRequest message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                HealthCheckRequest.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.service != null && $Object.hasOwnProperty.call(message, "service") && message.service !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.service);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a HealthCheckRequest message from the specified reader or buffer.
                 * @function decode
                 * @memberof grpc.health.v1.HealthCheckRequest
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {grpc.health.v1.HealthCheckRequest & grpc.health.v1.HealthCheckRequest.$Shape} HealthCheckRequest
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                HealthCheckRequest.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.grpc.health.v1.HealthCheckRequest();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.service = value;
                                else
                                    delete message.service;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return HealthCheckRequest;
            })();

            v1.HealthCheckResponse = (function() {

                /**
                 * Properties of a HealthCheckResponse.
                 * @typedef {Object} grpc.health.v1.HealthCheckResponse.$Properties
                 * @property {grpc.health.v1.HealthCheckResponse.ServingStatus|null} [status] HealthCheckResponse status
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a HealthCheckResponse.
                 * @memberof grpc.health.v1
                 * @interface IHealthCheckResponse
                 * @augments grpc.health.v1.HealthCheckResponse.$Properties
                 * @deprecated Use grpc.health.v1.HealthCheckResponse.$Properties instead.
                 */

                /**
                 * Shape of a HealthCheckResponse.
                 * @typedef {grpc.health.v1.HealthCheckResponse.$Properties} grpc.health.v1.HealthCheckResponse.$Shape
                 */

                /**
                 * Constructs a new HealthCheckResponse.
                 * @memberof grpc.health.v1
                 * @classdesc Represents a HealthCheckResponse.
                 * @constructor
                 * @param {grpc.health.v1.HealthCheckResponse.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const HealthCheckResponse = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * HealthCheckResponse status.
                 * @member {grpc.health.v1.HealthCheckResponse.ServingStatus} status
                 * @memberof grpc.health.v1.HealthCheckResponse
                 * @instance
                 */
                HealthCheckResponse.prototype.status = 0;

                /**
                 * Creates a new HealthCheckResponse instance using the specified properties.
                 * @function create
                 * @memberof grpc.health.v1.HealthCheckResponse
                 * @static
                 * @param {grpc.health.v1.HealthCheckResponse.$Properties=} [properties] Properties to set
                 * @returns {grpc.health.v1.HealthCheckResponse} HealthCheckResponse instance
                 * @type {{
                 *   (properties: grpc.health.v1.HealthCheckResponse.$Shape): grpc.health.v1.HealthCheckResponse & grpc.health.v1.HealthCheckResponse.$Shape;
                 *   (properties?: grpc.health.v1.HealthCheckResponse.$Properties): grpc.health.v1.HealthCheckResponse;
                 * }}
                 */
                HealthCheckResponse.create = function(properties) {
                    return new HealthCheckResponse(properties);
                };

                /**
                 * Encodes the specified HealthCheckResponse message. Does not implicitly {@link grpc.health.v1.HealthCheckResponse.verify|verify} messages.
                 * @function encode
                 * @memberof grpc.health.v1.HealthCheckResponse
                 * @static
                 * @param {grpc.health.v1.HealthCheckResponse.$Properties} message HealthCheckResponse message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                HealthCheckResponse.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.status != null && $Object.hasOwnProperty.call(message, "status") && message.status !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.status);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a HealthCheckResponse message from the specified reader or buffer.
                 * @function decode
                 * @memberof grpc.health.v1.HealthCheckResponse
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {grpc.health.v1.HealthCheckResponse & grpc.health.v1.HealthCheckResponse.$Shape} HealthCheckResponse
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                HealthCheckResponse.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.grpc.health.v1.HealthCheckResponse();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.status = value;
                                else
                                    delete message.status;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                /**
                 * ServingStatus enum.
                 * @name grpc.health.v1.HealthCheckResponse.ServingStatus
                 * @enum {number}
                 * @property {number} UNKNOWN=0 UNKNOWN value
                 * @property {number} SERVING=1 SERVING value
                 * @property {number} NOT_SERVING=2 NOT_SERVING value
                 * @property {number} SERVICE_UNKNOWN=3 SERVICE_UNKNOWN value
                 */
                HealthCheckResponse.ServingStatus = (function() {
                    const valuesById = $Object.create(null), values = $Object.create(valuesById);
                    values[valuesById[0] = "UNKNOWN"] = 0;
                    values[valuesById[1] = "SERVING"] = 1;
                    values[valuesById[2] = "NOT_SERVING"] = 2;
                    values[valuesById[3] = "SERVICE_UNKNOWN"] = 3;
                    return values;
                })();

                return HealthCheckResponse;
            })();

            return v1;
        })();

        return health;
    })();

    return grpc;
})();

export {
  $root as default
};
