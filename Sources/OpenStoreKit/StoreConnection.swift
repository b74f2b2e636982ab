public import AppStoreEngine
public import Foundation

/// What a device needs from an App Store: the catalog, purchases, the device's unfinished transactions,
/// restores, purchase intents, receipts and hosted content, and a signal when any of it changes.
///
/// ``InProcessConnection`` runs a `StoreEngine` inside the app's process. A connection to a remote
/// `storekit serve` implements the same protocol over HTTP, so the payment queue does not change with the
/// store's location. Every method may be called from any task; errors are the store's own `StoreError`s.
public protocol StoreConnection: Sendable {
    /// The store's settings; the payment queue reads the locale product text is shown in.
    func settings() async throws(StoreError) -> StoreSettings

    /// The products the store sells among `identifiers`, in catalog order. Unknown identifiers are left out.
    func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct]

    /// An account, with its storefront and whether it may make payments.
    func account(_ id: String) async throws(StoreError) -> Account

    /// Buys a product and returns the recorded transaction.
    func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord

    /// Marks a transaction finished on a device.
    func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError)

    /// The transactions a device has not finished, for an account and an app, oldest first.
    func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord]

    /// The transactions that match a query, oldest first.
    func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord]

    /// Replays an account's restorable purchases as new restore transactions on a device.
    func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord]

    /// The promoted purchases waiting for an app, oldest first.
    func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord]

    /// Removes a purchase intent the device handed to its app.
    func removePurchaseIntent(_ id: UUID) async throws(StoreError)

    /// Redeems a subscription offer code for an account outside any app; the transaction reaches devices as a
    /// change.
    func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord

    /// An account's auto-renewable subscriptions in an app, with their renewal state (price-increase consent among it).
    func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord]

    /// The signed app receipt (PKCS#7) of an account's purchases in an app, as a device holds it.
    func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data

    /// The DER root certificates the store's signatures chain to: a device verifies signed transactions, renewal
    /// info and app transactions against them, as an iPhone does against Apple's root.
    func rootCertificates() async throws(StoreError) -> [Data]

    /// Completed transactions signed now for a device (StoreKit 2's `Transaction`): each JWS carries a
    /// `deviceVerification` computed from `deviceID`. In the order of `ids`.
    func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String]

    /// The renewal info of subscriptions (by original transaction identifier) signed now for a device, in the
    /// order of `subscriptionIDs`.
    func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String]

    /// The app transaction of an account's copy of an app (StoreKit 2's `AppTransaction`), signed now for a device.
    func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String

    /// A customer's refund request from the app: approved, the store refunds the transaction; declined, it tells the
    /// app's server (`REFUND_DECLINED`). A store whose refund requests await a decision keeps it pending instead and
    /// tells the app's server `CONSUMPTION_REQUEST` with `reason` (Apple's `consumptionRequestReason` raw value; `OTHER`
    /// when `nil` or unknown); `approve` is not used then.
    func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError)

    /// An external purchase token for an account's app: with a `tokenType`, the active custom link token of that type
    /// (`ExternalPurchaseCustomLink.token(for:)`), a new one when the store issues one, or `nil`; without, a new token of
    /// the notice sheet (`ExternalPurchase.presentNoticeSheet()`).
    func externalPurchaseToken(
        tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String
    ) async throws(StoreError) -> ExternalPurchaseTokenRecord?

    /// The content the store hosts for a product (`SKDownload`), or `nil` when the product has none.
    func hostedContent(productID: String) async throws(StoreError) -> HostedContent?

    /// A signal each time something the devices see may have changed: a transaction, a refund, a storefront,
    /// a purchase intent. The stream is subscribed when this method returns, so no change after it is missed.
    /// It ends when the task that iterates it is cancelled.
    func changes() async -> AsyncStream<StoreChange>
}

extension StoreConnection {
    /// A customer's refund request that gives no reason (`OTHER` when the store waits for decisions).
    public func requestRefund(transactionID: UInt64, accountID: String, approve: Bool) async throws(StoreError) {
        try await requestRefund(transactionID: transactionID, accountID: accountID, approve: approve, reason: nil)
    }
}

/// What changed in a store, as far as a connection can tell.
public enum StoreChange: Sendable, Hashable {
    /// These transactions were created or changed their state; nothing else changed.
    case transactions([TransactionRecord])
    /// These subscriptions changed (renewal state, auto-renew, billing retry); what they mean for transactions arrives
    /// as a change of its own. StoreKit 2's subscription statuses follow them; the payment queue has nothing to do.
    case subscriptions([SubscriptionRecord])
    /// Anything else, or something unknown (another process wrote to the store): refunds, deletions, storefronts,
    /// purchase intents. A device looks at everything again.
    case other
}

/// Content a store hosts for a product, downloaded with `SKDownload`.
public struct HostedContent: Sendable, Hashable {
    /// The product the content belongs to.
    public var productID: String
    /// The content's version (`ContentVersion` of the package's `ContentInfo.plist`, else `"1.0"`).
    public var version: String
    /// The total size of the content in bytes.
    public var length: Int64
    /// Where the content can be copied from.
    public var location: URL

    /// Describes hosted content.
    public init(productID: String, version: String, length: Int64, location: URL) {
        self.productID = productID
        self.version = version
        self.length = length
        self.location = location
    }

    /// Reads the hosted content of `productID` from a folder of content packages: `<folder>/<product ID>/`.
    ///
    /// A package may hold a `ContentInfo.plist` whose `ContentVersion` names the version. `nil` when the folder
    /// has no package for the product.
    public static func package(productID: String, in folder: URL) -> HostedContent? {
        let location = folder.appendingPathComponent(productID, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        var version = "1.0"
        if let data = try? Data(contentsOf: location.appendingPathComponent("ContentInfo.plist")),
           let info = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
           let declared = info["ContentVersion"] as? String {
            version = declared
        }
        let length = ContentFiles.list(in: location).reduce(Int64(0)) { $0 + $1.size }
        return HostedContent(productID: productID, version: version, length: length, location: location)
    }
}

/// The regular files of a folder, with their sizes and paths relative to the folder, in a stable order.
enum ContentFiles {
    struct File: Sendable {
        var relativePath: String
        var size: Int64
    }

    static func list(in folder: URL) -> [File] {
        guard let paths = FileManager.default.subpaths(atPath: folder.path) else { return [] }
        return paths.sorted().compactMap { path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(path).path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { return nil }
            return File(relativePath: path, size: (attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
