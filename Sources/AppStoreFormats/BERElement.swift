import Foundation

/// One BER element read in place: its identifier and where its contents lie, without copying or building a tree.
///
/// Written by hand for receipt payloads, whose hundreds of small attributes swift-asn1's `BER.parse` turns into a
/// node tree with an allocation per node: `storekit bench receipt-verify` spent nine tenths of its time there
/// (4,600 receipts/s with ten purchases each). The PKCS#7 envelope and the certificates are still read with
/// swift-asn1. Definite and indefinite lengths, long-form lengths and high tag numbers are read as BER allows.
struct BERElement {
    /// The identifier's class: 0 universal, 1 application, 2 context-specific, 3 private.
    let tagClass: UInt8
    /// Whether the contents are further elements.
    let isConstructed: Bool
    /// The tag number within its class.
    let tagNumber: UInt
    /// Where the contents are in the buffer read; for an indefinite length, the bytes before the end-of-contents.
    let contents: Range<Int>
    /// Where the element starts in the buffer read: its identifier.
    let start: Int
    /// Where the element ends in the buffer read (after the end-of-contents octets for an indefinite length).
    let end: Int

    /// The whole element, identifier to end.
    var encoded: Range<Int> { start..<end }

    /// The universal tag numbers receipts use.
    enum UniversalTag {
        static let integer: UInt = 2
        static let octetString: UInt = 4
        static let sequence: UInt = 16
        static let set: UInt = 17

        /// Whether `tagNumber` is UTF8String, PrintableString, T61String, IA5String, VisibleString or BMPString.
        static func isString(_ tagNumber: UInt) -> Bool {
            switch tagNumber {
            case 12, 19, 20, 22, 26, 30: true
            default: false
            }
        }
    }

    /// Nesting deeper than this is refused, so crafted input cannot exhaust the stack.
    private static let maximumDepth = 32

    /// Whether this is the universal, primitive or constructed element with `tagNumber`.
    func isUniversal(_ tagNumber: UInt, constructed: Bool) -> Bool {
        tagClass == 0 && isConstructed == constructed && self.tagNumber == tagNumber
    }

    /// Reads the element that starts at `offset` and must end by `limit`.
    init(in bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) throws(FormatError) {
        try self.init(in: bytes, at: offset, limit: limit, depth: 0)
    }

    private init(in bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int, depth: Int) throws(FormatError) {
        guard depth <= Self.maximumDepth else { throw Self.malformed("nests deeper than \(Self.maximumDepth) levels", at: offset) }
        start = offset
        var position = offset
        func next() throws(FormatError) -> UInt8 {
            guard position < limit else { throw Self.malformed("ends inside an element's header", at: position) }
            defer { position += 1 }
            return bytes[position]
        }

        let identifier = try next()
        tagClass = identifier >> 6
        isConstructed = identifier & 0x20 != 0
        if identifier & 0x1F == 0x1F {
            var number: UInt = 0
            while true {
                let byte = try next()
                guard number >> (UInt.bitWidth - 7) == 0 else { throw Self.malformed("has a tag number too large", at: offset) }
                number = number << 7 | UInt(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            tagNumber = number
        } else {
            tagNumber = UInt(identifier & 0x1F)
        }

        let lengthByte = try next()
        if lengthByte == 0x80 {
            guard isConstructed else { throw Self.malformed("gives a primitive element an indefinite length", at: offset) }
            var child = position
            while true {
                guard child + 1 < limit else { throw Self.malformed("has no end-of-contents for its indefinite length", at: offset) }
                if bytes[child] == 0, bytes[child + 1] == 0 { break }
                child = try BERElement(in: bytes, at: child, limit: limit, depth: depth + 1).end
            }
            contents = position..<child
            end = child + 2
            return
        }
        var length = 0
        if lengthByte & 0x80 == 0 {
            length = Int(lengthByte)
        } else {
            let count = Int(lengthByte & 0x7F)
            guard count <= 4 else { throw Self.malformed("has a length of \(count) bytes", at: offset) }
            for _ in 0..<count { length = length << 8 | Int(try next()) }
        }
        guard length <= limit - position else {
            throw Self.malformed("claims \(length) bytes of contents, but \(limit - position) remain", at: offset)
        }
        contents = position..<(position + length)
        end = position + length
    }

    /// The elements inside a constructed element, in order.
    ///
    /// - Throws: `FormatError.malformedData` when the element is primitive or a child is malformed.
    func children(in bytes: UnsafeRawBufferPointer) throws(FormatError) -> [BERElement] {
        guard isConstructed else { throw Self.malformed("is primitive where a constructed element belongs", at: start) }
        var children: [BERElement] = []
        var offset = contents.lowerBound
        while offset < contents.upperBound {
            let child = try BERElement(in: bytes, at: offset, limit: contents.upperBound)
            children.append(child)
            offset = child.end
        }
        return children
    }

    /// The contents as a signed big-endian integer, if it fits in 64 bits.
    func integer(in bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !contents.isEmpty else { return nil }
        var start = contents.lowerBound
        // Leading octets that only repeat the sign are allowed in BER; they do not count towards the 8 bytes.
        while contents.upperBound - start > 8,
            bytes[start] == 0 && bytes[start + 1] & 0x80 == 0 || bytes[start] == 0xFF && bytes[start + 1] & 0x80 != 0
        {
            start += 1
        }
        guard contents.upperBound - start <= 8 else { return nil }
        var value: Int64 = bytes[start] & 0x80 != 0 ? -1 : 0
        for index in start..<contents.upperBound { value = value << 8 | Int64(bytes[index]) }
        return value
    }

    private static func malformed(_ problem: String, at offset: Int) -> FormatError {
        .malformedData("The BER element at byte \(offset) \(problem).")
    }
}
