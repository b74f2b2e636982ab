public import Foundation

/// An iOS 6-style transaction receipt (`SKPaymentTransaction.transactionReceipt`): base64 of an OpenStep
/// property list with `signature`, `purchase-info` (itself a base64 property list), `environment`, `pod` and
/// `signing-status`.
///
/// Only decoding is offered: the signature format predates modern tools and cannot be verified with them.
public struct LegacyTransactionReceipt: Hashable, Sendable {
    /// The outer fields (`environment`, `pod`, `signing-status`, …) except `purchase-info` and `signature`.
    public let fields: [String: String]
    /// The decoded `purchase-info` fields (`transaction-id`, `product-id`, `purchase-date-ms`, `bid`, …).
    public let purchaseInfo: [String: String]
    /// The decoded `signature` blob.
    public let signature: Data

    /// The purchase's transaction identifier.
    public var transactionID: String? { purchaseInfo["transaction-id"] }
    /// The purchase's product identifier.
    public var productID: String? { purchaseInfo["product-id"] }
    /// `Sandbox` or `Production`, when present.
    public var environment: String? { fields["environment"] }

    /// Decodes a legacy receipt from its base64 text (or the property list text itself).
    public init(_ text: String) throws {
        let outerText: String
        if text.contains("purchase-info") {
            outerText = text
        } else if let bytes = Base64.decodeIgnoringWhitespace(text), let decoded = String(bytes: bytes, encoding: .utf8) {
            outerText = decoded
        } else {
            throw FormatError.malformedData("The legacy transaction receipt is not base64 text.")
        }
        var outer = try Self.parseStrings(outerText)
        guard let purchaseInfoText = outer.removeValue(forKey: "purchase-info"),
            let purchaseInfoBytes = Base64.decodeIgnoringWhitespace(purchaseInfoText),
            let purchaseInfoPlist = String(bytes: purchaseInfoBytes, encoding: .utf8)
        else {
            throw FormatError.malformedData("The legacy transaction receipt has no readable purchase-info.")
        }
        let signatureText = outer.removeValue(forKey: "signature") ?? ""
        self.fields = outer
        self.purchaseInfo = try Self.parseStrings(purchaseInfoPlist)
        self.signature = Data(Base64.decodeIgnoringWhitespace(signatureText) ?? [])
    }

    /// Parses `{ "key" = "value"; … }` dictionaries of strings (the subset of OpenStep plists Apple used).
    static func parseStrings(_ text: String) throws -> [String: String] {
        var result: [String: String] = [:]
        var scanner = Substring(text)
        func skipWhitespace() { scanner = scanner.drop { $0.isWhitespace } }
        func quoted() throws -> String {
            skipWhitespace()
            guard scanner.first == "\"" else { throw FormatError.malformedData("Expected a quoted string in the property list.") }
            scanner = scanner.dropFirst()
            var value = ""
            while let character = scanner.first {
                scanner = scanner.dropFirst()
                if character == "\\", let next = scanner.first {
                    value.append(next)
                    scanner = scanner.dropFirst()
                } else if character == "\"" {
                    return value
                } else {
                    value.append(character)
                }
            }
            throw FormatError.malformedData("Unterminated string in the property list.")
        }
        skipWhitespace()
        guard scanner.first == "{" else { throw FormatError.malformedData("The property list is not a dictionary.") }
        scanner = scanner.dropFirst()
        while true {
            skipWhitespace()
            if scanner.first == "}" { return result }
            let key = try quoted()
            skipWhitespace()
            guard scanner.first == "=" else { throw FormatError.malformedData("Expected = after \(key).") }
            scanner = scanner.dropFirst()
            result[key] = try quoted()
            skipWhitespace()
            guard scanner.first == ";" else { throw FormatError.malformedData("Expected ; after the value of \(key).") }
            scanner = scanner.dropFirst()
        }
    }
}
