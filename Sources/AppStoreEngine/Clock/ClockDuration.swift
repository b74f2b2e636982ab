public import Foundation

/// A duration people write: numbers with units, such as `1y`, `3mo`, `2w`, `10d`, `12h`, `30m`, `45s` or `1mo2d`.
///
/// Years, months, weeks and days are calendar units in UTC, so `1mo` from January 31 is the end of February;
/// hours, minutes and seconds are exact.
public struct ClockDuration: Sendable, Hashable {
    /// A unit, by the suffix that writes it.
    public enum Unit: String, Sendable, CaseIterable {
        // Longest spelling first, so `mo` is not read as `m`.
        case months = "mo", years = "y", weeks = "w", days = "d", hours = "h", minutes = "m", seconds = "s"
    }

    /// The amounts, in the order written.
    public var parts: [(value: Int, unit: Unit)]

    /// How a duration is written, for error messages and help.
    public static let unitsHelp = "y (years), mo (months), w (weeks), d (days), h (hours), m (minutes), s (seconds), e.g. 1y, 3mo, 2w, 10d, 12h, 30m, 45s or 1mo2d"

    /// Reads a duration; `nil` when `text` is not numbers with units.
    public init?(parsing text: String) {
        var parts: [(Int, Unit)] = []
        var rest = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        while !rest.isEmpty {
            let digits = rest.prefix(while: \.isASCII).prefix(while: \.isNumber)
            let afterDigits = rest.dropFirst(digits.count)
            guard let value = Int(digits), let unit = Unit.allCases.first(where: { afterDigits.hasPrefix($0.rawValue) }) else { return nil }
            parts.append((value, unit))
            rest = afterDigits.dropFirst(unit.rawValue.count)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
    }

    /// `date` moved forward by this duration, in the Gregorian calendar in UTC; `nil` when that is out of range.
    public func added(to date: Date) -> Date? {
        var components = DateComponents()
        for (value, unit) in parts {
            switch unit {
            case .years: components.year = (components.year ?? 0) + value
            case .months: components.month = (components.month ?? 0) + value
            case .weeks: components.day = (components.day ?? 0) + 7 * value
            case .days: components.day = (components.day ?? 0) + value
            case .hours: components.hour = (components.hour ?? 0) + value
            case .minutes: components.minute = (components.minute ?? 0) + value
            case .seconds: components.second = (components.second ?? 0) + value
            }
        }
        return Calendar.gregorianUTC.date(byAdding: components, to: date)
    }

    /// Durations are equal when they are written alike.
    public static func == (lhs: ClockDuration, rhs: ClockDuration) -> Bool {
        lhs.parts.map(\.value) == rhs.parts.map(\.value) && lhs.parts.map(\.unit) == rhs.parts.map(\.unit)
    }

    /// Hashes the amounts.
    public func hash(into hasher: inout Hasher) {
        for (value, unit) in parts {
            hasher.combine(value)
            hasher.combine(unit)
        }
    }
}
