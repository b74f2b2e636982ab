public import Foundation

/// A JSON value exactly as it appears in a `.storekit` file.
///
/// The loader keeps every key it does not model (a key a newer Xcode added, a key a tool wrote) as a
/// `ConfigurationJSON` in the `unknownKeys` of the object that held it, and the writer puts it back, so a
/// read/write round trip never loses data. Numbers keep their literal text (`804965276.43550706` stays
/// exactly that), because re-formatting a binary floating-point value would change the file.
public enum ConfigurationJSON: Sendable, Equatable {
    /// An object. Member order is not kept: Xcode sorts keys when it writes, and so does ``StoreKitConfigurationFile/encodedData()``.
    case object([String: ConfigurationJSON])
    /// An array, in file order.
    case array([ConfigurationJSON])
    /// A string.
    case string(String)
    /// A number, as the literal text written in the file (for example `"3"` or `"728456127.62338305"`).
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Parses a JSON document: a `.storekit` file, or any JSON that holds one.
    ///
    /// - Parameters:
    ///   - data: UTF-8 JSON.
    ///   - sourceName: The name a syntax error uses for the document.
    /// - Throws: ``ConfigurationError`` with a `syntaxError` issue at the line and column where the JSON goes wrong.
    public init(parsing data: Data, sourceName: String = "<memory>") throws(ConfigurationError) {
        var parser = JSONParser(bytes: Array(data))
        do {
            self = try parser.parseDocument()
        } catch {
            let (line, column) = parser.position(ofOffset: error.offset)
            throw ConfigurationError(
                sourceName: sourceName,
                issues: [
                    ConfigurationIssue(
                        code: .syntaxError, location: .position(line: line, column: column), message: error.message,
                        fix: error.fix)
                ])
        }
    }

    /// The value as an `Int`, when it is a number written without a fraction or exponent.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The value as a `Double`, when it is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// A short human description of the value, used in error messages (`"P1Q"`, `12`, `an object`).
    var shortDescription: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string(let text):
            let clipped = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "\"\(clipped)\""
        case .number(let text): return text
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }
}
