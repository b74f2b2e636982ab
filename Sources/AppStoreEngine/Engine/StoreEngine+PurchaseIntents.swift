public import Foundation
import StoreKitConfiguration

extension StoreEngine {
    /// Records that a customer started buying a product outside the app (a promoted in-app purchase).
    ///
    /// The intent waits in the store until a device running the app picks it up with
    /// ``purchaseIntents(accountID:bundleID:)`` and removes it with ``removePurchaseIntent(_:)``.
    ///
    /// - Parameters:
    ///   - productID: The product the customer wants.
    ///   - accountID: The customer's account.
    ///   - bundleID: The app.
    ///   - winBackOfferID: A win-back offer of the subscription the customer chose on the App Store.
    /// - Throws: ``StoreError`` `unknownProduct` when the catalog does not sell the product, `invalidOfferIdentifier`
    ///   when the product has no such win-back offer.
    @discardableResult
    public func addPurchaseIntent(
        productID: String, accountID: String = StoreDefaults.accountID, bundleID: String, winBackOfferID: String? = nil
    ) async throws(StoreError) -> PurchaseIntentRecord {
        let catalog = try await catalog { $0.product(productID) != nil }
        guard let product = catalog.product(productID) else {
            throw StoreError.unknownProduct("No product \"\(productID)\" in this store, so it cannot be promoted. Use one of: \(catalog.products.map(\.id).joined(separator: ", ")).")
        }
        if let winBackOfferID {
            let offers = product.subscription?.winBackOffers.compactMap(\.offerID) ?? []
            guard offers.contains(winBackOfferID) else {
                throw StoreError.invalidOfferIdentifier("\(productID) has no win-back offer \"\(winBackOfferID)\". \(offers.isEmpty ? "It has none; add one to the configuration's winbackOffers." : "Use one of: \(offers.joined(separator: ", ")).")")
            }
        }
        let intent = try await perform { operation in
            let intent = PurchaseIntentRecord(
                accountID: accountID, bundleID: bundleID, productID: productID, date: operation.now, winBackOfferID: winBackOfferID
            )
            try operation.storage.write(.savePurchaseIntent(intent))
            return intent
        }
        publish(.purchaseIntentAdded(intent))
        return intent
    }

    /// The purchase intents waiting for an app, oldest first.
    public func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await read { try $0.purchaseIntents(accountID: accountID, bundleID: bundleID) }
    }

    /// Removes a purchase intent once a device handed it to its app. Removing an unknown intent does nothing.
    public func removePurchaseIntent(_ id: UUID) async throws(StoreError) {
        try await perform { try $0.storage.write(.deletePurchaseIntent(id)) }
    }
}
