import AppStoreEngine
public import Foundation

/// A product configured as a generic SKU for the Advanced Commerce API: your server decides, sale by sale, what it
/// sells under it, and signs that request; the app passes the signed request to ``purchase(compactJWS:options:)``.
public struct AdvancedCommerceProduct: Identifiable, Sendable, Hashable {
    /// The generic product's identifier.
    public typealias ID = String
    /// The kinds of product: consumable or non-consumable for one-time charges, auto-renewable for subscriptions.
    public typealias ProductType = Product.ProductType
    /// What a purchase came to, as for ``Product``.
    public typealias PurchaseResult = Product.PurchaseResult

    /// The generic product ID.
    public let id: ID
    /// The type of the product.
    public let type: ProductType

    /// The generic product with the identifier, from the store.
    ///
    /// - Throws: ``Product/PurchaseError/productUnavailable`` when the store does not sell it.
    public init(id: ID) async throws {
        guard let product = try await Product.products(for: [id]).first else { throw Product.PurchaseError.productUnavailable }
        self.id = product.id
        self.type = product.type
    }

    /// An option of an Advanced Commerce purchase.
    public struct PurchaseOption: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case appAccountToken(UUID)
            case simulatesAskToBuyInSandbox(Bool)
        }

        let kind: Kind

        /// Ties the purchase to your app's account for the customer; the request's own `appAccountToken` wins.
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { PurchaseOption(kind: .appAccountToken(token)) }
        /// Behaves as if Ask to Buy were on for this purchase.
        public static func simulatesAskToBuyInSandbox(_ simulate: Bool) -> PurchaseOption { PurchaseOption(kind: .simulatesAskToBuyInSandbox(simulate)) }
    }

    /// Buys what the signed request describes: `compactJWS` is the request your server signed with its In-App
    /// Purchase key (Apple's `AdvancedCommerceAPIInAppSignatureCreator`, or `PromotionalOfferSigner`'s
    /// `signAdvancedCommerceRequest`). The transaction carries the request's items in
    /// `advancedCommerceInfo` of its signed form. A modification (`MODIFY_SUBSCRIPTION`) answers the transaction that
    /// charges what changes now, or the current one; a reactivation (`REACTIVATE_SUBSCRIPTION`) charges nothing: it
    /// turns the subscription's automatic renewal back on and answers its current transaction.
    ///
    /// - Throws: ``StoreKitError`` when the store refuses the request (its message, with Apple's error code, says
    ///   why) or cannot be reached; ``Product/PurchaseError`` as for ``Product``.
    @MainActor
    public func purchase(compactJWS: String, options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .purchase)
        var request = PurchaseRequest(
            productID: id, accountID: device.environment.accountID, bundleID: device.environment.bundleID, deviceID: device.environment.deviceID
        )
        request.advancedCommerceRequest = compactJWS
        for option in options {
            switch option.kind {
            case .appAccountToken(let token): request.appAccountToken = token
            case .simulatesAskToBuyInSandbox(let simulate): request.simulatesAskToBuy = simulate
            }
        }
        return try await Product.result(of: request, on: device)
    }
}
