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
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            buffer.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            buffer.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            buffer[6] = buffer[6] & 0x0F | 0x40  // version 4
            buffer[8] = buffer[8] & 0x3F | 0x80  // RFC 4122 variant
        }
        return UUID(uuid: bytes)
    }
}
