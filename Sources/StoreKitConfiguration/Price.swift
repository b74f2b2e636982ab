import Foundation

/// Prices in `.storekit` files are strings holding a decimal number (`"0.99"`, `"79"`, `"699.00"`): a `.` as
/// separator, no sign, no currency symbol, no grouping. `""` means the price was never set.
enum Price {
    /// Whether `text` is a well-formed price or `""`.
    static func isValid(_ text: String) -> Bool {
        text.isEmpty || decimal(text) != nil
    }

    /// The exact decimal value of a well-formed price; `nil` for `""` or anything malformed.
    static func decimal(_ text: String) -> Decimal? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            return nil
        }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}
