public import Foundation

/// The test URL Apple documents for promoted in-app purchases:
/// `itms-services://?action=purchaseIntent&bundleId=com.example.app&productIdentifier=product_name`.
///
/// Opening it on a device starts the purchase of `productIdentifier` for the app `bundleId`, as if the
/// customer had tapped the promoted product on the App Store.
public struct PurchaseIntentURL: Sendable, Hashable {
    /// The app's bundle identifier (`bundleId`).
    public var bundleID: String
    /// The product to buy (`productIdentifier`).
    public var productID: String

    /// Creates the URL's contents.
    public init(bundleID: String, productID: String) {
        self.bundleID = bundleID
        self.productID = productID
    }

    /// Parses an `itms-services` purchase-intent URL; nil for any other URL or when a parameter is missing.
    public init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.scheme?.lowercased() == "itms-services" else { return nil }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            if let value = item.value { parameters[item.name] = value }
        }
        guard parameters["action"] == "purchaseIntent",
              let bundleID = parameters["bundleId"], !bundleID.isEmpty,
              let productID = parameters["productIdentifier"], !productID.isEmpty else { return nil }
        self.init(bundleID: bundleID, productID: productID)
    }

    /// The URL in Apple's form.
    public var url: URL {
        var components = URLComponents()
        components.scheme = "itms-services"
        components.host = ""
        components.queryItems = [
            URLQueryItem(name: "action", value: "purchaseIntent"),
            URLQueryItem(name: "bundleId", value: bundleID),
            URLQueryItem(name: "productIdentifier", value: productID),
        ]
        return components.url!
    }
}
