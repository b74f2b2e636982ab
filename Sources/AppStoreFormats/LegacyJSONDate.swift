import Foundation

/// Dates as `verifyReceipt` writes them: three strings per date, `X` (`2021-07-18 04:48:20 Etc/GMT`), `X_ms`
/// (`1626583700000`) and `X_pst` (`2021-07-17 21:48:20 America/Los_Angeles`).
enum LegacyJSONDate {
    private static let gmt = calendar("GMT")
    private static let pacific = calendar("America/Los_Angeles")

    private static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)!
        return calendar
    }

    /// `2021-07-18 04:48:20 Etc/GMT`.
    static func gmtString(_ date: Date) -> String { format(date, in: gmt) + " Etc/GMT" }

    /// `2021-07-17 21:48:20 America/Los_Angeles`.
    static func pacificString(_ date: Date) -> String { format(date, in: pacific) + " America/Los_Angeles" }

    /// Milliseconds since 1970 as a decimal string.
    static func millisecondsString(_ date: Date) -> String { String(ReceiptDate.milliseconds(from: date)) }

    private static func format(_ date: Date, in calendar: Calendar) -> String {
        // Whole seconds, as Apple writes them; the `_ms` twin keeps the milliseconds.
        let seconds = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: seconds)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }
}

/// A JSON key known only at run time: the date triplets' `_ms` and `_pst` twins.
struct LegacyJSONKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedEncodingContainer where Key == LegacyJSONKey {
    /// Writes a string if it is set.
    mutating func encode(_ value: String?, _ key: String) throws {
        if let value { try encode(value, forKey: LegacyJSONKey(key)) }
    }

    /// Writes a date as `key`, `key_ms` and `key_pst`, if it is set.
    mutating func encodeDate(_ date: Date?, _ key: String) throws {
        guard let date else { return }
        try encode(LegacyJSONDate.gmtString(date), forKey: LegacyJSONKey(key))
        try encode(LegacyJSONDate.millisecondsString(date), forKey: LegacyJSONKey(key + "_ms"))
        try encode(LegacyJSONDate.pacificString(date), forKey: LegacyJSONKey(key + "_pst"))
    }
}

extension KeyedDecodingContainer where Key == LegacyJSONKey {
    /// Reads a string, if present.
    func string(_ key: String) throws -> String? {
        try decodeIfPresent(String.self, forKey: LegacyJSONKey(key))
    }

    /// Reads a date from its `key_ms` twin, the exact one.
    func date(_ key: String) throws -> Date? {
        guard let text = try string(key + "_ms") else { return nil }
        guard let milliseconds = Int64(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: LegacyJSONKey(key + "_ms"), in: self, debugDescription: "\(text) is not a number of milliseconds."
            )
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
