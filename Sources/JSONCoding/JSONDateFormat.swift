package import Foundation

/// How a `Date` is written in JSON text, by ``JSONWriter`` and the field writers, and read by ``JSONReader``.
package enum JSONDateFormat: Sendable {
    /// Seconds since 2001 (`Date`'s own `Codable` form, `JSONEncoder`'s and `JSONDecoder`'s default): stored rows,
    /// HTTP bodies.
    case secondsSince2001
    /// Milliseconds since 1970: Apple's signed payloads and Server API bodies. Written as a whole number (rounded to
    /// the millisecond, as Apple writes them); read whole or fractional (as Xcode writes them).
    case millisecondsSince1970
}

extension [UInt8] {
    /// Appends a date as `format` writes it; returns `false`, appending nothing, for a date JSON cannot hold (its
    /// time interval is not finite).
    package mutating func appendJSONDate(_ date: Date, as format: JSONDateFormat) -> Bool {
        switch format {
        case .secondsSince2001:
            return appendJSONNumber(date.timeIntervalSinceReferenceDate)
        case .millisecondsSince1970:
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            guard milliseconds.isFinite, milliseconds.magnitude < 0x1p63 else { return false }
            appendJSONInteger(Int64(milliseconds))
            return true
        }
    }
}
