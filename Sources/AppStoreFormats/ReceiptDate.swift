import Foundation

/// Receipt dates (RFC 3339 text in IA5Strings) and Apple's JSON dates (integer milliseconds since 1970).
enum ReceiptDate {
    /// `2023-10-19T01:45:36Z`: what receipts write.
    private static let standard = Date.ISO8601FormatStyle()
    /// What receipts from elsewhere also use: fractional seconds, a space instead of `T`.
    private static let accepted = [
        standard,
        Date.ISO8601FormatStyle(includingFractionalSeconds: true),
        Date.ISO8601FormatStyle(dateTimeSeparator: .space),
        Date.ISO8601FormatStyle(dateTimeSeparator: .space, includingFractionalSeconds: true),
    ]

    /// Formats `date` as an RFC 3339 UTC timestamp without fractional seconds: `2023-10-19T01:45:36Z`.
    static func string(from date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(standard)
    }

    /// Parses `yyyy-MM-ddTHH:mm:ss` followed by `Z`, `±hhmm` or `±hh:mm`, with optional fractional seconds.
    /// Returns nil for anything else (including the empty string Apple writes for "no date").
    static func date(from text: String) -> Date? {
        guard !text.isEmpty else { return nil }
        if let date = try? standard.parse(text) { return date }
        return accepted.dropFirst().lazy.compactMap { try? $0.parse(text) }.first
    }

    /// Milliseconds since 1970, rounded to the nearest millisecond (Apple's JSON date representation).
    static func milliseconds(from date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
