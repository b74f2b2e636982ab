/// A subscription or offer period: a count of days, weeks, months or years, written in files as a
/// single-component ISO-8601 duration (`P1W`, `P3M`, `P1Y`).
public struct SubscriptionPeriod: Sendable, Hashable, CustomStringConvertible {
    /// The unit of a period.
    public enum Unit: String, Sendable, Hashable, CaseIterable {
        /// Days (`D`).
        case day = "D"
        /// Weeks (`W`).
        case week = "W"
        /// Months (`M`).
        case month = "M"
        /// Years (`Y`).
        case year = "Y"
    }

    /// How many units (at least 1).
    public var value: Int
    /// The unit.
    public var unit: Unit

    /// Creates a period of `value` units.
    public init(value: Int, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Parses `P<n>D`, `P<n>W`, `P<n>M` or `P<n>Y` with `n` ≥ 1 and no leading zero; `nil` for anything else
    /// (several components such as `P1Y2M`, time parts, lower case).
    public init?(iso8601 text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3, scalars.first == "P", let unit = Unit(rawValue: String(scalars[scalars.count - 1])) else {
            return nil
        }
        let digits = scalars[1..<scalars.count - 1]
        guard digits.first != "0", digits.allSatisfy({ ("0"..."9").contains($0) }),
            let value = Int(String(String.UnicodeScalarView(digits))), value >= 1
        else { return nil }
        self.init(value: value, unit: unit)
    }

    /// The ISO-8601 form, e.g. `P1M`.
    public var iso8601: String { "P\(value)\(unit.rawValue)" }

    /// `1 month`, `2 weeks`.
    public var description: String {
        let name: String
        switch unit {
        case .day: name = "day"
        case .week: name = "week"
        case .month: name = "month"
        case .year: name = "year"
        }
        return "\(value) \(name)\(value == 1 ? "" : "s")"
    }
}

/// A period is coded as its ISO-8601 form (`"P1M"`), as `.storekit` files and Apple's JSON write it.
extension SubscriptionPeriod: Codable {
    /// Decodes `"P<n><unit>"`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a single-component period.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let period = SubscriptionPeriod(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a period such as P1W, P1M or P1Y.")
        }
        self = period
    }

    /// Encodes ``iso8601``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
