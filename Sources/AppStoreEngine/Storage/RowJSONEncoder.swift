import AppStoreFormats
import Foundation

/// Writes a stored row's body: a value's own `Encodable` conformance, as JSON text, in one pass.
///
/// The text is what `JSONEncoder` with its default options writes, up to key order and the spelling of numbers, so
/// `JSONDecoder` reads back the same value and rows written before (or by `JSONEncoder`) stay readable: dates as
/// seconds since 2001 (`Date`'s own encoding), `Decimal` as a JSON number, `URL` as its absolute string, `Data` as
/// Base64, and a value that encodes nothing as `{}`.
///
/// `JSONEncoder` first builds a tree of every value, then writes the tree; on a row-sized record that costs more
/// than SQLite's insert. The records every purchase and renewal writes write themselves (``RowJSONWritable``); for
/// everything else this writes each value as the conformance hands it over, and closes a container when its
/// parent moves on. A conformance that goes back to a container after writing a later sibling, or asks for a
/// `superEncoder`, cannot be followed in one pass: for those the value is encoded again with `JSONEncoder`.
package struct RowJSONEncoder: Sendable {
    /// Creates an encoder.
    package init() {}

    /// The JSON text of `value`.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` would throw too: a non-finite floating-point number.
    package func encode(_ value: some Encodable) throws -> String {
        if let record = value as? any RowJSONWritable { return try RowJSONObjectWriter.text(of: record) }
        return try encodeThroughConformance(value)
    }

    /// The JSON text of `value`, written through its `Encodable` conformance even when it writes itself
    /// (``RowJSONWritable``): what the records' own writers are checked against.
    package func encodeThroughConformance(_ value: some Encodable) throws -> String {
        let writer = JSONRowWriter()
        do {
            try writer.writeValue(value, depth: 0, start: 0)
            if writer.output.isEmpty { writer.output.append(contentsOf: "{}".utf8) }
            writer.closeFrames(downTo: 0)
            if !writer.unsupported { return String(decoding: writer.output, as: UTF8.self) }
        } catch where writer.unsupported {
            // Encoded again below.
        }
        return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

/// Thrown, and recorded, when a conformance uses the encoding API in a way one pass cannot follow.
private struct UnsupportedInOnePass: Error {}

/// The output of one ``RowJSONEncoder/encode(_:)`` call, and the containers it has open.
private final class JSONRowWriter {
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

    init() {
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
            // What `Date`'s own conformance writes: seconds since 2001.
            try writeDouble((value as! Date).timeIntervalSinceReferenceDate)
        } else if T.self == UUID.self {
            writeString((value as! UUID).uuidString)
        } else if T.self == Decimal.self {
            guard output.appendJSONNumber(value as! Decimal) else { throw fail() }
        } else if T.self == URL.self {
            writeString((value as! URL).absoluteString)
        } else if T.self == Data.self {
            writeString((value as! Data).base64EncodedString())
        } else {
            try value.encode(to: RowValueEncoder(writer: self, depth: depth, start: start))
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

/// The spelling of JSON's scalars, shared by the one-pass encoder and the records' own writers (see
/// `RowJSONWritable`), so both write a value the same way, byte for byte.
extension [UInt8] {
    /// Appends an integer's digits.
    mutating func appendJSONInteger<T: BinaryInteger>(_ value: T) {
        if let small = Int64(exactly: value) {
            if small < 0 {
                append(UInt8(ascii: "-"))
                appendDigits(small.magnitude)
            } else {
                appendDigits(UInt64(small))
            }
        } else if let large = UInt64(exactly: value) {
            appendDigits(large)
        } else {
            append(contentsOf: String(value).utf8)
        }
    }

    private mutating func appendDigits(_ value: UInt64) {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var index = self.count - 1
        rest = value
        repeat {
            self[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
    }

    /// Appends a finite number; returns `false`, appending nothing, for one JSON cannot hold (`JSONEncoder` throws).
    mutating func appendJSONNumber(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if value.rounded(.towardZero) == value, value.magnitude < 0x1p53, !(value == 0 && value.sign == .minus) {
            // Whole seconds, prices and counts: the integer digits, which read back as the same Double.
            appendJSONInteger(Int64(value))
        } else {
            append(contentsOf: value.description.utf8)
        }
        return true
    }

    /// Appends a decimal as a JSON number, as `Decimal`'s own conformance writes it; returns `false`, appending
    /// nothing, for NaN.
    mutating func appendJSONNumber(_ value: Decimal) -> Bool {
        guard !value.isNaN else { return false }
        append(contentsOf: value.plainText.utf8)
        return true
    }

    /// Appends a string in quotes, escaping what JSON requires.
    mutating func appendJSONString(_ string: String) {
        JSONValue.writeString(string, to: &self)
    }
}

/// The encoder a value's conformance gets: it owns the position where the value goes.
private struct RowValueEncoder: Encoder {
    let writer: JSONRowWriter
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
            return KeyedEncodingContainer(RowKeyedContainer(writer: writer, id: id, depth: depth))
        }
        guard writer.isEmptySlot(depth: depth, start: start) else {
            _ = writer.fail()
            return KeyedEncodingContainer(RowKeyedContainer(writer: writer, id: -1, depth: depth))
        }
        let (id, depth) = writer.openFrame(isArray: false, key: writer.pendingKey)
        return KeyedEncodingContainer(RowKeyedContainer(writer: writer, id: id, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if let id = writer.reopenedFrame(depth: depth, start: start, isArray: true) {
            return RowUnkeyedContainer(writer: writer, id: id, depth: depth)
        }
        guard writer.isEmptySlot(depth: depth, start: start) else {
            _ = writer.fail()
            return RowUnkeyedContainer(writer: writer, id: -1, depth: depth)
        }
        let (id, depth) = writer.openFrame(isArray: true, key: writer.pendingKey)
        return RowUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        RowSingleValueContainer(encoder: self)
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONRowWriter
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
        do { try begin(key) } catch { return KeyedEncodingContainer(RowKeyedContainer<NestedKey>(writer: writer, id: -1, depth: depth + 1)) }
        let (id, depth) = writer.openFrame(isArray: false, key: key)
        return KeyedEncodingContainer(RowKeyedContainer<NestedKey>(writer: writer, id: id, depth: depth))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do { try begin(key) } catch { return RowUnkeyedContainer(writer: writer, id: -1, depth: depth + 1) }
        let (id, depth) = writer.openFrame(isArray: true, key: key)
        return RowUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        _ = writer.fail()
        return RowValueEncoder(writer: writer, depth: -1, start: -1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = writer.fail()
        return RowValueEncoder(writer: writer, depth: -1, start: -1)
    }
}

private struct RowUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONRowWriter
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
        do { try begin() } catch { return KeyedEncodingContainer(RowKeyedContainer<NestedKey>(writer: writer, id: -1, depth: depth + 1)) }
        let (id, depth) = writer.openFrame(isArray: false, key: nil)
        return KeyedEncodingContainer(RowKeyedContainer<NestedKey>(writer: writer, id: id, depth: depth))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        do { try begin() } catch { return RowUnkeyedContainer(writer: writer, id: -1, depth: depth + 1) }
        let (id, depth) = writer.openFrame(isArray: true, key: nil)
        return RowUnkeyedContainer(writer: writer, id: id, depth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        _ = writer.fail()
        return RowValueEncoder(writer: writer, depth: -1, start: -1)
    }
}

/// A value encoder's single value: written in place, once.
private struct RowSingleValueContainer: SingleValueEncodingContainer {
    let encoder: RowValueEncoder
    var writer: JSONRowWriter { encoder.writer }
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
