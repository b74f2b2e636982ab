import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        if let date = dateInStandardForm(text) ?? (try? standard.parse(text)) { return date }
        return accepted.dropFirst().lazy.compactMap { try? $0.parse(text) }.first
    }

    /// Reads exactly `yyyy-MM-ddTHH:mm:ssZ`, the form receipts write, by hand: Foundation's ISO 8601 parser cost a
    /// tenth of `storekit bench receipt-verify`, which reads several dates per purchase. The calendar arithmetic is
    /// the C library's `timegm`. Returns nil for any other form, which the format styles then read.
    private static func dateInStandardForm(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { utf8 -> Date? in
            guard utf8.count == 20, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
                utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"),
                utf8[19] == UInt8(ascii: "Z")
            else { return nil }
            func number(_ range: Range<Int>) -> Int32? {
                var value: Int32 = 0
                for index in range {
                    let digit = utf8[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int32(digit)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
            else { return nil }
            var fields = tm()
            fields.tm_year = year - 1900
            fields.tm_mon = month - 1
            fields.tm_mday = day
            fields.tm_hour = hour
            fields.tm_min = minute
            fields.tm_sec = second
            let seconds = timegm(&fields)
            // timegm rolls a day past the month's end into the next month; such a date is not valid.
            guard fields.tm_mday == day else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    /// Milliseconds since 1970, rounded to the nearest millisecond (Apple's JSON date representation).
    static func milliseconds(from date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
