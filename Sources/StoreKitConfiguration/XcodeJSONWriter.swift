/// Writes a ``ConfigurationJSON`` the way Xcode writes `.storekit` files, so files we save diff cleanly
/// against files Xcode saves:
///
/// - two-space indentation, one member or element per line, `"key" : value` (a space on both sides of the colon);
/// - object keys sorted case-insensitively (`_storefront` before `_storeKitErrors`); array order kept;
/// - empty arrays and objects written with an empty line inside (`[\n\n  ]`);
/// - `/` not escaped, non-ASCII written as raw UTF-8, only `"`, `\` and control characters escaped;
/// - numbers written with the literal text they were read with;
/// - a final newline after the closing brace.
enum XcodeJSONWriter {
    static func serialize(_ value: ConfigurationJSON) -> String {
        var output = ""
        write(value, indent: 0, into: &output)
        output += "\n"
        return output
    }

    /// Xcode's key order: case-insensitive, ties broken by the exact spelling so the order is total.
    static func sortedKeys<Value>(_ dictionary: [String: Value]) -> [String] {
        dictionary.keys.sorted { left, right in
            let l = left.lowercased()
            let r = right.lowercased()
            return l == r ? left < right : l < r
        }
    }

    private static func write(_ value: ConfigurationJSON, indent: Int, into output: inout String) {
        switch value {
        case .object(let members):
            guard !members.isEmpty else {
                output += "{\n\n" + spaces(indent) + "}"
                return
            }
            output += "{\n"
            let keys = sortedKeys(members)
            for (position, key) in keys.enumerated() {
                output += spaces(indent + 2)
                writeString(key, into: &output)
                output += " : "
                write(members[key] ?? .null, indent: indent + 2, into: &output)
                output += position == keys.count - 1 ? "\n" : ",\n"
            }
            output += spaces(indent) + "}"
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[\n\n" + spaces(indent) + "]"
                return
            }
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += spaces(indent + 2)
                write(element, indent: indent + 2, into: &output)
                output += position == elements.count - 1 ? "\n" : ",\n"
            }
            output += spaces(indent) + "]"
        case .string(let text):
            writeString(text, into: &output)
        case .number(let text):
            output += text
        case .bool(let flag):
            output += flag ? "true" : "false"
        case .null:
            output += "null"
        }
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    private static func spaces(_ count: Int) -> String {
        String(repeating: " ", count: count)
    }
}
