import Foundation

/// Collects every issue found while reading one file, so loading reports them all at once.
final class IssueCollector {
    private var collected: [ConfigurationIssue] = []

    /// The issues in file order: sorted by path the way Xcode orders a file (keys case-insensitively,
    /// array elements by index, an object before its members), whole-file issues first. For a file Xcode
    /// wrote this is exactly top-to-bottom order; issues at the same path keep the order they were found.
    var issues: [ConfigurationIssue] {
        collected.enumerated().sorted { left, right in
            switch JSONPath.compare(left.element.location, right.element.location) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return left.offset < right.offset
            }
        }.map(\.element)
    }

    func add(_ code: ConfigurationIssue.Code, at path: String, _ message: String, fix: String) {
        collected.append(
            ConfigurationIssue(code: code, location: path.isEmpty ? .file : .path(path), message: message, fix: fix))
    }
}

/// JSON paths as written in issues: `subscriptionGroups[0].subscriptions[1].adHocOffers[0].offerID`.
enum JSONPath {
    enum Component: Equatable {
        case key(String)
        case index(Int)
    }

    static func member(_ parent: String, _ key: String) -> String { parent.isEmpty ? key : "\(parent).\(key)" }
    static func element(_ parent: String, _ index: Int) -> String { "\(parent)[\(index)]" }

    /// Splits `a[0].b` into `key(a), index(0), key(b)`.
    static func components(_ path: String) -> [Component] {
        var components: [Component] = []
        var current = ""
        var inIndex = false
        for character in path {
            switch character {
            case "." where !inIndex:
                if !current.isEmpty { components.append(.key(current)) }
                current = ""
            case "[" where !inIndex:
                if !current.isEmpty { components.append(.key(current)) }
                current = ""
                inIndex = true
            case "]" where inIndex:
                components.append(.index(Int(current) ?? 0))
                current = ""
                inIndex = false
            default:
                current.append(character)
            }
        }
        if !current.isEmpty { components.append(.key(current)) }
        return components
    }

    /// Orders locations as Xcode orders a file: whole-file issues first, then paths component by component.
    static func compare(_ left: ConfigurationIssue.Location, _ right: ConfigurationIssue.Location) -> ComparisonResult {
        switch (left, right) {
        case (.path(let l), .path(let r)): return compare(components(l), components(r))
        case (.file, .file): return .orderedSame
        case (.file, _): return .orderedAscending
        case (_, .file): return .orderedDescending
        default: return .orderedSame
        }
    }

    private static func compare(_ left: [Component], _ right: [Component]) -> ComparisonResult {
        for (l, r) in zip(left, right) where l != r {
            switch (l, r) {
            case (.index(let a), .index(let b)): return a < b ? .orderedAscending : .orderedDescending
            case (.key(let a), .key(let b)):
                let (la, lb) = (a.lowercased(), b.lowercased())
                if la != lb { return la < lb ? .orderedAscending : .orderedDescending }
                return a < b ? .orderedAscending : .orderedDescending
            case (.index, .key): return .orderedAscending
            case (.key, .index): return .orderedDescending
            }
        }
        if left.count == right.count { return .orderedSame }
        return left.count < right.count ? .orderedAscending : .orderedDescending
    }
}

/// Typed, path-aware access to the members of one JSON object. Every accessor reports a wrong type (and,
/// when asked, a missing key) to the collector and returns `nil`, so decoding goes on and finds every issue.
struct ObjectReader {
    let members: [String: ConfigurationJSON]
    let path: String
    let issues: IssueCollector

    /// Reads `value` as an object, reporting anything else.
    static func make(_ value: ConfigurationJSON, path: String, issues: IssueCollector, what: String) -> ObjectReader? {
        guard case .object(let members) = value else {
            issues.add(
                .wrongType, at: path, "Expected \(what) (a JSON object), found \(value.shortDescription).",
                fix: "Write it as { \"key\" : value, … }.")
            return nil
        }
        return ObjectReader(members: members, path: path, issues: issues)
    }

    var layout: KeyLayout { KeyLayout(sourceKeys: Set(members.keys)) }

    func path(_ key: String) -> String { JSONPath.member(path, key) }

    func unknownKeys(_ known: Set<String>) -> [String: ConfigurationJSON] {
        members.filter { !known.contains($0.key) }
    }

    func has(_ key: String) -> Bool { members[key] != nil }

    func value(_ key: String) -> ConfigurationJSON? { members[key] }

    /// Reports a missing required key with an example of what to add.
    func reportMissing(_ key: String, example: String) {
        issues.add(.missingKey, at: path(key), "Required key \"\(key)\" is missing.", fix: "Add \"\(key)\" : \(example).")
    }

    func reportWrongType(_ key: String, expected: String, found: ConfigurationJSON, fix: String) {
        issues.add(.wrongType, at: path(key), "Expected \(expected), found \(found.shortDescription).", fix: fix)
    }

    func string(_ key: String, required example: String? = nil) -> String? {
        guard let value = members[key] else {
            if let example { reportMissing(key, example: example) }
            return nil
        }
        guard case .string(let text) = value else {
            reportWrongType(key, expected: "a string", found: value, fix: "Put the value in double quotes.")
            return nil
        }
        return text
    }

    /// A string that may also be `null` (`referenceName` in some Xcode 12.5 files).
    func nullableString(_ key: String) -> String? {
        if case .null = members[key] { return nil }
        return string(key)
    }

    func bool(_ key: String) -> Bool? {
        guard let value = members[key] else { return nil }
        guard case .bool(let flag) = value else {
            reportWrongType(key, expected: "true or false", found: value, fix: "Write true or false, without quotes.")
            return nil
        }
        return flag
    }

    func int(_ key: String, required example: String? = nil) -> Int? {
        guard let value = members[key] else {
            if let example { reportMissing(key, example: example) }
            return nil
        }
        guard let number = value.intValue else {
            reportWrongType(key, expected: "a whole number", found: value, fix: "Write a whole number without quotes, e.g. 1.")
            return nil
        }
        return number
    }

    /// The elements of an array member, each with its path.
    func array(_ key: String) -> [(value: ConfigurationJSON, path: String)]? {
        guard let value = members[key] else { return nil }
        guard case .array(let elements) = value else {
            reportWrongType(key, expected: "an array", found: value, fix: "Write it as [ … ], even for a single entry.")
            return nil
        }
        let base = path(key)
        return elements.enumerated().map { (value: $0.element, path: JSONPath.element(base, $0.offset)) }
    }

    func object(_ key: String, what: String) -> ObjectReader? {
        guard let value = members[key] else { return nil }
        return ObjectReader.make(value, path: path(key), issues: issues, what: what)
    }

    /// A price string: a decimal such as `"4.99"`, or `""` for unset. Reports anything else.
    func price(_ key: String) -> String? {
        guard let value = members[key] else { return nil }
        guard case .string(let text) = value else {
            let example = value.intValue != nil || value.doubleValue != nil ? "\"\(value.shortDescription)\"" : "\"4.99\""
            reportWrongType(
                key, expected: "the price as a string", found: value,
                fix: "Prices are strings: write \(example).")
            return nil
        }
        if !Price.isValid(text) {
            issues.add(
                .invalidPrice, at: path(key), "\"\(text)\" is not a price.",
                fix: "Write a decimal number with '.' as separator and no currency symbol, e.g. \"4.99\" (or \"\" for no price yet).")
        }
        return text
    }

    /// A required ISO-8601 period such as `"P1M"`.
    func period(_ key: String, example: String = "\"P1M\"") -> SubscriptionPeriod? {
        guard let text = string(key, required: example) else { return nil }
        guard let period = SubscriptionPeriod(iso8601: text) else {
            issues.add(
                .invalidPeriod, at: path(key), "\"\(text)\" is not an ISO-8601 period.",
                fix: "Use P<n>D, P<n>W, P<n>M or P<n>Y, e.g. P1M.")
            return nil
        }
        return period
    }
}
