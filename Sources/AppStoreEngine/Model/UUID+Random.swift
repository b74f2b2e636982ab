public import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's secure random generator.
    ///
    /// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for each identifier: a store writes a
    /// notification, with a new identifier, for every renewal, and three system calls each cost as much as the rest
    /// of making the notification.
    @usableFromInline
    static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        return UUID(high: generator.next(), low: generator.next(), version: 4)
    }

    /// A time-ordered (version 7) UUID: the 48 bits after the epoch in milliseconds of `date`, then 74 random bits.
    ///
    /// Identifiers made in the order of their dates sort in that order, as text too, so an index on them grows at its
    /// end: a random identifier puts each new entry on a page of its own, a page more for every commit to write.
    static func timeOrdered(at date: Date) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1_000).rounded(.down))) & 0xFFFF_FFFF_FFFF
        return UUID(high: milliseconds << 16 | (generator.next() as UInt64) & 0xFFFF, low: generator.next(), version: 7)
    }

    /// The UUID whose 128 bits, most significant first, are `high` then `low`, with the version nibble set to `version`
    /// and the RFC 9562 variant bits.
    private init(high: UInt64, low: UInt64, version: UInt8) {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            buffer[6] = buffer[6] & 0x0F | version << 4
            buffer[8] = buffer[8] & 0x3F | 0x80
        }
        self.init(uuid: bytes)
    }
}
