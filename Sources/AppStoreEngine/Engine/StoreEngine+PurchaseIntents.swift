public import Foundation

extension StoreEngine {
    /// Records that a customer started buying a product outside the app (a promoted in-app purchase).
    ///
    /// The intent waits in the store until a device running the app picks it up with
    /// ``purchaseIntents(accountID:bundleID:)`` and removes it with ``removePurchaseIntent(_:)``.
    ///
    /// - Throws: ``StoreError`` `unknownProduct` when the catalog does not sell the product.
    @discardableResult
    public func addPurchaseIntent(
        productID: String, accountID: String = StoreDefaults.accountID, bundleID: String
    ) async throws(StoreError) -> PurchaseIntentRecord {
        guard catalog.product(productID) != nil else {
            throw StoreError.unknownProduct("No product \"\(productID)\" in this store, so it cannot be promoted. Use one of: \(catalog.products.map(\.id).joined(separator: ", ")).")
        }
        let intent = try await perform { operation in
            let intent = PurchaseIntentRecord(accountID: accountID, bundleID: bundleID, productID: productID, date: operation.now)
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
