public import Foundation

/// A purchase a customer started outside the app — a promoted in-app purchase tapped on the App Store, or an
/// `itms-services://?action=purchaseIntent…` URL — waiting for the app to continue it.
///
/// The store keeps the intent until a device of the account hands it to the app (StoreKit's
/// `paymentQueue(_:shouldAddStorePayment:for:)`); the device then removes it, whatever the app answers.
public struct PurchaseIntentRecord: Sendable, Hashable, Codable, Identifiable {
    /// The intent's identifier.
    public var id: UUID
    /// The account that started the purchase.
    public var accountID: String
    /// The app the purchase is for.
    public var bundleID: String
    /// The product the customer wants to buy.
    public var productID: String
    /// When the customer started the purchase, from the store's clock.
    public var date: Date
    /// The win-back offer the customer chose on the App Store (StoreKit 2's `PurchaseIntent.offer`), if any.
    public var winBackOfferID: String?

    /// Creates an intent.
    public init(id: UUID = UUID(), accountID: String, bundleID: String, productID: String, date: Date, winBackOfferID: String? = nil) {
        self.id = id
        self.accountID = accountID
        self.bundleID = bundleID
        self.productID = productID
        self.date = date
        self.winBackOfferID = winBackOfferID
    }
}
