#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

extension SKProduct {
    /// The cost of the product formatted in the storefront's currency.
    var regularPrice: String? {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = priceLocale
        return formatter.string(from: price)
    }
}
