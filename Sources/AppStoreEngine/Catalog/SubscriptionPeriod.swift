/// A length of subscription time such as one month (`P1M`), as written in ISO 8601.
public struct SubscriptionPeriod: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The unit a period counts in.
    public enum Unit: String, Sendable, Hashable, Codable {
        /// Days (`D`).
        case day = "D"
        /// Weeks (`W`).
        case week = "W"
        /// Months (`M`).
        case month = "M"
        /// Years (`Y`).
        case year = "Y"
    }

    /// How many units the period spans.
    public var value: Int
    /// The unit of the period.
    public var unit: Unit

    /// Creates a period of `value` units.
    public init(value: Int, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Parses a single-component ISO 8601 duration such as `P1W`, `P3M` or `P1Y`; nil for anything else.
    public init?(iso8601 text: String) {
        guard text.count >= 3, text.first == "P", let unit = Unit(rawValue: String(text.last!)),
              let value = Int(text.dropFirst().dropLast()), value > 0 else { return nil }
        self.init(value: value, unit: unit)
    }

    /// The period in ISO 8601 form, e.g. `P1M`.
    public var iso8601: String { "P\(value)\(unit.rawValue)" }

    /// The ISO 8601 form.
    public var description: String { iso8601 }

    /// The period's length in days, counting a month as 30 and a year as 365 days.
    public var approximateDays: Double {
        switch unit {
        case .day: Double(value)
        case .week: Double(7 * value)
        case .month: Double(30 * value)
        case .year: Double(365 * value)
        }
    }
}
