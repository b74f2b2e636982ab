import Foundation

/// Writes a value's JSON text through its own `Encodable` conformance, in one pass: the package's one JSON writer,
/// for stored rows (dates as seconds since 2001) and Apple's signed payloads and Server API bodies (dates as
/// milliseconds since 1970, UUIDs in lowercase).
///
/// The text is what `JSONEncoder` writes with the same date strategy, compact, keys in the order the conformance
/// encodes them (declaration order for synthesized ones), absent optionals left out: `JSONDecoder` (and
/// ``JSONReader``) read back the same value. `Decimal` is a JSON number, `URL` its absolute string, `Data` Base64,
/// and a value that encodes nothing `{}`.
///
/// `JSONEncoder` first builds a tree of every value, then writes the tree; on a row-sized record or a signed
/// transaction that costs more than storing or signing it. This writes each value as the conformance hands it over,
/// and closes a container when its parent moves on. A conformance that goes back to a container after writing a
/// later sibling, or asks for a `superEncoder`, cannot be followed in one pass: such a value is encoded again by
/// `JSONEncoder` with the same date strategy (its UUIDs then in `UUID`'s own uppercase).
package struct JSONWriter: Sendable {
    /// How a `UUID` is spelled.
    package enum UUIDCase: Sendable {
        /// `UUID`'s own `Codable` form: stored rows, HTTP bodies.
        case uppercase
        /// Apple's form in signed payloads (`appAccountToken`).
        case lowercase
    }

    /// How dates are written.
    package let dates: JSONDateFormat
    /// How UUIDs are spelled.
    package let uuids: UUIDCase

    /// Creates a writer; by default it writes as `JSONEncoder` with its default options.
    package init(dates: JSONDateFormat = .secondsSince2001, uuids: UUIDCase = .uppercase) {
        self.dates = dates
        self.uuids = uuids
    }

    /// The JSON text of `value`, as UTF-8 bytes.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` would throw too: a non-finite floating-point number or date.
    package func encode(_ value: some Encodable) throws -> [UInt8] {
        let output = OnePassOutput(dates: dates, uuids: uuids)
        do {
            try output.writeValue(value, depth: 0, start: 0)
            if output.output.isEmpty { output.output.append(contentsOf: "{}".utf8) }
            output.closeFrames(downTo: 0)
            if !output.unsupported { return output.output }
        } catch where output.unsupported {
            // Encoded again below.
        }
        let encoder = JSONEncoder()
        if dates == .millisecondsSince1970 { encoder.dateEncodingStrategy = .millisecondsSince1970 }
        return Array(try encoder.encode(value))
    }

    /// The JSON text of `value`.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` would throw too: a non-finite floating-point number or date.
    package func encodeText(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}

/// Thrown, and recorded, when a conformance uses the encoding API in a way one pass cannot follow.
private struct UnsupportedInOnePass: Error {}

/// The output of one ``JSONWriter/encode(_:)`` call, and the containers it has open.
private final class OnePassOutput {
    /// One open object or array: written by its container while it is the innermost open one or one of its
    /// parents, closed when a parent writes its next element.
    struct Frame {
        /// Tells containers apart: a container whose frame was closed and replaced may not write again.
        var id: Int
        var isArray: Bool
        var count: Int
        /// Where its `{` or `[` is in the output: a value encoder that asks for its container again gets this one.
        var start: Int
        /// The key it was opened under, for coding paths.
        var key: (any CodingKey)?
    }

    // Only the encoding's own thread touches a writer, one access at a time: no need for the runtime's checks,
    // which cost as much as the writing.
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var frames: [Frame] = []
    var nextFrameID = 0
    /// The key of the value being encoded, until it opens its container.
    var pendingKey: (any CodingKey)?
    /// Set when the conformance did something one pass cannot write; the output is then thrown away.
    var unsupported = false

    let dates: JSONDateFormat
    let uuids: JSONWriter.UUIDCase

    init(dates: JSONDateFormat, uuids: JSONWriter.UUIDCase) {
        self.dates = dates
        self.uuids = uuids
        output.reserveCapacity(1024)
    }

    func fail() -> UnsupportedInOnePass {
        unsupported = true
        return UnsupportedInOnePass()
    }

    // MARK: Containers

    /// Opens an object or array at the current position.
    func openFrame(isArray: Bool, key: (any CodingKey)?) -> (id: Int, depth: Int) {
        let id = nextFrameID
        nextFrameID += 1
        frames.append(Frame(id: id, isArray: isArray, count: 0, start: output.count, key: key))
        output.append(isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        return (id, frames.count - 1)
    }

    func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            output.append(frames.removeLast().isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
        }
    }

    /// Gets the frame at `depth` ready for its next element: closes the frames nested in it, writes the comma.
    func beginElement(frame id: Int, depth: Int) throws(UnsupportedInOnePass) {
        guard depth >= 0, depth < frames.count, frames[depth].id == id else { throw fail() }
        closeFrames(downTo: depth + 1)
        if frames[depth].count > 0 { output.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
    }

    /// Whether a value encoder at `depth` that starts at `start` has written nothing yet.
    func isEmptySlot(depth: Int, start: Int) -> Bool {
        frames.count == depth && output.count == start
    }

    /// The frame a value encoder opened before, when it asks for its container again.
    func reopenedFrame(depth: Int, start: Int, isArray: Bool) -> Int? {
        guard depth >= 0, depth < frames.count, frames[depth].start == start, frames[depth].isArray == isArray else { return nil }
        closeFrames(downTo: depth + 1)
        return frames[depth].id
    }

    /// The keys of the open frames above `depth`.
    func codingPath(depth: Int) -> [any CodingKey] {
        frames.prefix(max(0, depth)).compactMap(\.key)
    }

    // MARK: Values

    /// Writes a value at the current position, which a value encoder at `depth` starting at `start` owns.
    func writeValue<T: Encodable>(_ value: T, depth: Int, start: Int) throws {
        if T.self == String.self {
            writeString(value as! String)
        } else if T.self == Date.self {
            guard output.appendJSONDate(value as! Date, as: dates) else { throw fail() }
        } else if T.self == UUID.self {
            let text = (value as! UUID).uuidString
            writeString(uuids == .lowercase ? text.lowercased() : text)
        } else if T.self == Decimal.self {
            guard output.appendJSONNumber(value as! Decimal) else { throw fail() }
        } else if T.self == URL.self {
            writeString((value as! URL).absoluteString)
        } else if T.self == Data.self {
            writeString((value as! Data).base64EncodedString())
        } else {
            try value.encode(to: OnePassEncoder(writer: self, depth: depth, start: start))
            if output.count == start { output.append(contentsOf: "{}".utf8) }
        }
    }

    func writeKey(_ key: some CodingKey) {
        writeString(key.stringValue)
        output.append(UInt8(ascii: ":"))
    }

    func writeNull() {
        output.append(contentsOf: "null".utf8)
    }

    func writeBool(_ value: Bool) {
        output.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    func writeInteger<T: BinaryInteger>(_ value: T) {
        output.appendJSONInteger(value)
    }

    func writeDouble(_ value: Double) throws(UnsupportedInOnePass) {
        guard output.appendJSONNumber(value) else { throw fail() }
    }

    func writeFloat(_ value: Float) throws(UnsupportedInOnePass) {
        guard value.isFinite else { throw fail() }
        output.append(contentsOf: value.description.utf8)
    }

    func writeString(_ string: String) {
        output.appendJSONString(string)
    }
}

/// The encoder a value's conformance gets: it owns the position where the value goes.
private struct OnePassEncoder: Encoder {
    let writer: OnePassOutput
    /// The depth its container takes in the writer's frames.
    let depth: Int
    /// Where the value begins in the output.
    let start: Int

    var codingPath: [any CodingKey] {
        writer.frames.count > depth ? writer.codingPath(depth: depth + 1) : writer.codingPath(depth: depth) + [writer.pendingKey].compactMap { $0 }
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let id = writer.reopenedFrame(depth: depth, start: start, isArray: false) {
            return KeyedEncodingContainer(OnePassKeyedContainer(writer: writer, id: id, depth: depth))
        }
        guard writer.isEmptySlot(depth: depth, start: start) else {
            _ = writer.fail()
            return KeyedEncodingContainer(OnePassKeyedContainer(writer: writer, id: -1, depth: depth))
        }
        let (id, depth) = writer.openFrame(isArray: false, key: writer.pendingKey)
        return KeyedEncodingContainer(OnePassKeyedContainer(writer: writer, id: id, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if let id = writer.reopenedFrame(depth: depth, start: start, isArray: true) {
            return OnePassUnkeyedContainer(writer: writer, id: id, depth: depth)
        }
        guard writer.isEmptySlot(depth: depth, start: start) else {
            _ = writer.fail()
            return OnePassUnkeyedContainer(writer: writer, id: -1, depth: depth)
        }
        let (id, depth) = writer.openFrame(isArray: true, key: writer.pendingKey)
        return OnePassUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        OnePassSingleValueContainer(encoder: self)
    }
}

private struct OnePassKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: OnePassOutput
    let id: Int
    let depth: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth + 1) }

    private func begin(_ key: Key) throws {
        try writer.beginElement(frame: id, depth: depth)
        writer.writeKey(key)
    }

    mutating func encodeNil(forKey key: Key) throws { try begin(key); writer.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); writer.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); writer.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); try writer.writeDouble(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); try writer.writeFloat(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        writer.pendingKey = key
        try writer.writeValue(value, depth: depth + 1, start: writer.output.count)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        do { try begin(key) } catch { return KeyedEncodingContainer(OnePassKeyedContainer<NestedKey>(writer: writer, id: -1, depth: depth + 1)) }
        let (id, depth) = writer.openFrame(isArray: false, key: key)
        return KeyedEncodingContainer(OnePassKeyedContainer<NestedKey>(writer: writer, id: id, depth: depth))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do { try begin(key) } catch { return OnePassUnkeyedContainer(writer: writer, id: -1, depth: depth + 1) }
        let (id, depth) = writer.openFrame(isArray: true, key: key)
        return OnePassUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        _ = writer.fail()
        return OnePassEncoder(writer: writer, depth: -1, start: -1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = writer.fail()
        return OnePassEncoder(writer: writer, depth: -1, start: -1)
    }
}

private struct OnePassUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: OnePassOutput
    let id: Int
    let depth: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth + 1) }
    var count: Int { depth < writer.frames.count && writer.frames[depth].id == id ? writer.frames[depth].count : 0 }

    private func begin() throws {
        try writer.beginElement(frame: id, depth: depth)
    }

    mutating func encodeNil() throws { try begin(); writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try begin(); try writer.writeDouble(value) }
    mutating func encode(_ value: Float) throws { try begin(); try writer.writeFloat(value) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        writer.pendingKey = nil
        try writer.writeValue(value, depth: depth + 1, start: writer.output.count)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        do { try begin() } catch { return KeyedEncodingContainer(OnePassKeyedContainer<NestedKey>(writer: writer, id: -1, depth: depth + 1)) }
        let (id, depth) = writer.openFrame(isArray: false, key: nil)
        return KeyedEncodingContainer(OnePassKeyedContainer<NestedKey>(writer: writer, id: id, depth: depth))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        do { try begin() } catch { return OnePassUnkeyedContainer(writer: writer, id: -1, depth: depth + 1) }
        let (id, depth) = writer.openFrame(isArray: true, key: nil)
        return OnePassUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        _ = writer.fail()
        return OnePassEncoder(writer: writer, depth: -1, start: -1)
    }
}

/// A value encoder's single value: written in place, once.
private struct OnePassSingleValueContainer: SingleValueEncodingContainer {
    let encoder: OnePassEncoder
    var writer: OnePassOutput { encoder.writer }
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func begin() throws {
        guard encoder.depth >= 0, writer.isEmptySlot(depth: encoder.depth, start: encoder.start) else { throw writer.fail() }
    }

    mutating func encodeNil() throws { try begin(); writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try begin(); try writer.writeDouble(value) }
    mutating func encode(_ value: Float) throws { try begin(); try writer.writeFloat(value) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.writeValue(value, depth: encoder.depth, start: encoder.start)
    }
}
