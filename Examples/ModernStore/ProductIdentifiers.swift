#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif

/// The products the app sells — the sample's `Products.plist`, with the identifiers of `Examples/Demo.storekit`.
///
/// The App Store has no call that lists an app's products: the app ships its identifiers and asks the store
/// which of them are for sale.
enum ProductIdentifiers {
    static let all = [
        "com.example.demo.coins.100",
        "com.example.demo.coins.500",
        "com.example.demo.premium",
        "com.example.demo.theme.dark",
        "com.example.demo.season.pass",
        "com.example.demo.plus.weekly",
        "com.example.demo.plus.monthly",
        "com.example.demo.plus.yearly",
    ]
}
