#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

typealias RenewalInfo = Product.SubscriptionInfo.RenewalInfo
typealias RenewalState = Product.SubscriptionInfo.RenewalState

/// Why the store refused signed data.
enum StoreError: Error, LocalizedError {
    /// The App Store's signature, its certificate chain or the device verification did not check out.
    case failedVerification(reason: String)

    var errorDescription: String? {
        switch self {
        case .failedVerification(let reason): "failed verification: \(reason)"
        }
    }
}

/// The app's store, as in Apple's sample "Implementing a store in your app using the StoreKit API": it loads the
/// products, listens for transactions from the moment the app starts, buys, and keeps what the customer is
/// entitled to.
@MainActor
final class Store {
    /// Bought and used up: coins (the sample's fuel).
    private(set) var consumables: [Product] = []
    /// Bought once, kept forever (the sample's cars).
    private(set) var nonConsumables: [Product] = []
    /// Auto-renewable subscriptions.
    private(set) var subscriptions: [Product] = []
    /// Subscriptions that do not renew.
    private(set) var nonRenewables: [Product] = []
    /// The identifiers the App Store does not sell.
    private(set) var unavailableIdentifiers: [String] = []

    /// The non-consumables the customer owns.
    private(set) var purchasedNonConsumables: [Product] = []
    /// The non-renewing subscriptions the customer has.
    private(set) var purchasedNonRenewableSubscriptions: [Product] = []
    /// The auto-renewable subscriptions the customer is subscribed to.
    private(set) var purchasedSubscriptions: [Product] = []
    /// The verified transactions behind the purchases above, in purchase order.
    private(set) var entitlements: [Transaction] = []

    private let productIdentifiers: [String]
    private var updateListenerTask: Task<Void, Never>?
    private var messageListenerTask: Task<Void, Never>?
    private var loading: Task<Void, Never>?

    init(productIdentifiers: [String]) {
        self.productIdentifiers = productIdentifiers

        // Start the transaction listener as close to launch as possible, so no transaction is missed.
        updateListenerTask = listenForTransactions()
        #if canImport(UIKit) || !canImport(StoreKit)
        messageListenerTask = listenForMessages()
        #endif

        loading = Task {
            // Products the app sells, then what the customer already bought.
            await requestProducts()
            await updateCustomerProductStatus()
        }
    }

    deinit {
        updateListenerTask?.cancel()
        messageListenerTask?.cancel()
    }

    /// Waits until the products and the customer's purchases loaded at launch.
    func waitUntilLoaded() async {
        await loading?.value
    }

    /// Every product for sale: consumables, non-consumables, subscriptions, non-renewing subscriptions.
    var allProducts: [Product] {
        consumables + nonConsumables + subscriptions + nonRenewables
    }

    /// Iterates `Transaction.updates` for the life of the app: renewals, refunds, purchases approved by a parent,
    /// bought on another device or outside the app, and transactions an earlier run left unfinished.
    private func listenForTransactions() -> Task<Void, Never> {
        Task.detached { [weak self] in
            for await result in Transaction.updates {
                await self?.handle(update: result)
            }
        }
    }

    #if canImport(UIKit) || !canImport(StoreKit)
    /// Iterates `Message.messages` for the life of the app (iOS: Apple's StoreKit has no messages on macOS): a price
    /// increase to consent to, a billing issue, a win-back offer for a lapsed subscription. An app with a screen
    /// shows each with `display(in:)`; this one says which arrived.
    private func listenForMessages() -> Task<Void, Never> {
        Task.detached {
            for await message in Message.messages {
                Terminal.say("message \(Self.name(of: message.reason))")
            }
        }
    }

    /// The name a message reason has in Apple's API: `priceIncreaseConsent`, `billingIssue`, `winBackOffer`, …
    nonisolated static func name(of reason: Message.Reason) -> String {
        switch reason {
        case .priceIncreaseConsent: "priceIncreaseConsent"
        case .billingIssue: "billingIssue"
        case .winBackOffer: "winBackOffer"
        default: "generic"
        }
    }
    #endif

    private func handle(update result: VerificationResult<Transaction>) async {
        do {
            let transaction = try checkVerified(result)
            // Deliver content to the user, then always finish the transaction.
            await updateCustomerProductStatus()
            await transaction.finish()
            Terminal.say("update \(transaction.productID) \(Self.change(of: transaction)) (transaction \(transaction.id), verified)")
        } catch {
            // StoreKit has a transaction that fails verification: don't deliver content to the user.
            let transaction = result.unsafePayloadValue
            Terminal.say("update \(transaction.productID) (transaction \(transaction.id)) \(error.localizedDescription)")
        }
    }

    /// What a transaction that arrived as an update says happened.
    private static func change(of transaction: Transaction) -> String {
        if transaction.revocationDate != nil { return "revoked" }
        if transaction.isUpgraded { return "upgraded" }
        if let expiration = transaction.expirationDate, expiration <= Date() { return "expired" }
        if transaction.originalID != transaction.id { return "renewed" }
        return "purchased"
    }

    /// Asks the App Store which of the app's products it sells, and sorts them by kind and price.
    func requestProducts() async {
        do {
            let storeProducts = try await Product.products(for: productIdentifiers)
            var newConsumables: [Product] = []
            var newNonConsumables: [Product] = []
            var newSubscriptions: [Product] = []
            var newNonRenewables: [Product] = []
            for product in storeProducts {
                switch product.type {
                case .consumable: newConsumables.append(product)
                case .nonConsumable: newNonConsumables.append(product)
                case .autoRenewable: newSubscriptions.append(product)
                case .nonRenewable: newNonRenewables.append(product)
                default: Terminal.say("unknown product \(product.id)")
                }
            }
            consumables = sortByPrice(newConsumables)
            nonConsumables = sortByPrice(newNonConsumables)
            subscriptions = sortByPrice(newSubscriptions)
            nonRenewables = sortByPrice(newNonRenewables)
            let sold = Set(storeProducts.map(\.id))
            unavailableIdentifiers = productIdentifiers.filter { !sold.contains($0) }
        } catch {
            Terminal.say("products request failed: \(error.localizedDescription)")
        }
    }

    /// Buys a product, with `options` such as a win-back offer or a billing plan; returns the transaction once the
    /// product is delivered and the transaction finished, or `nil` when the purchase waits for approval or the
    /// customer cancelled.
    @discardableResult
    func purchase(_ product: Product, options: Set<Product.PurchaseOption> = []) async throws -> Transaction? {
        let result = try await product.purchase(options: options)
        switch result {
        case .success(let verification):
            // Check whether the transaction is verified. If it isn't, this throws and nothing is delivered.
            let transaction = try checkVerified(verification)
            // The JWS is what the app sends its server, which verifies it with Apple's libraries.
            Terminal.say("jws \(transaction.id): \(verification.jwsRepresentation.count) characters for the app's server")
            // Deliver content to the user, then always finish the transaction.
            await updateCustomerProductStatus()
            await transaction.finish()
            Terminal.say("purchased \(transaction.productID) (transaction \(transaction.id), verified)\(Self.terms(of: transaction))")
            return transaction
        case .pending:
            // Ask to Buy or a billing issue: the transaction arrives through `Transaction.updates` if it completes.
            Terminal.say("pending \(product.id): waiting for approval")
            return nil
        case .userCancelled:
            Terminal.say("cancelled \(product.id)")
            return nil
        @unknown default:
            return nil
        }
    }

    /// How a transaction was sold, when not at the plain price: ` with winBack offer plus.monthly.winback`,
    /// ` billed monthly 1/12`.
    nonisolated static func terms(of transaction: Transaction) -> String {
        var terms = ""
        if let offer = transaction.offer {
            terms += " with \(name(of: offer.type)) offer \(offer.id ?? "without identifier")"
        }
        if #available(iOS 26.4, macOS 26.4, *), let commitment = transaction.commitmentInfo {
            terms += " billed monthly \(commitment.billingPeriodNumber)/\(commitment.totalBillingPeriods)"
        }
        return terms
    }

    /// The name an offer type has in Apple's API: `introductory`, `promotional`, `code`, `winBack`.
    nonisolated static func name(of type: Transaction.OfferType) -> String {
        switch type {
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .code: "code"
        case .winBack: "winBack"
        default: "type \(type.rawValue)"
        }
    }

    /// The first win-back offer the App Store says the customer may redeem, and the product it wins them back to:
    /// renewal info lists the eligible offers best first (`eligibleWinBackOfferIDs`), and each is one of the group's
    /// products' `winBackOffers`.
    func eligibleWinBackOffer() async throws -> (product: Product, offer: Product.SubscriptionOffer)? {
        for group in try await subscriptionStatuses() {
            for status in group.statuses {
                for offerID in try checkVerified(status.renewalInfo).eligibleWinBackOfferIDs {
                    for product in subscriptions {
                        if let offer = product.subscription?.winBackOffers.first(where: { $0.id == offerID }) {
                            return (product, offer)
                        }
                    }
                }
            }
        }
        return nil
    }

    /// Whether the customer owns or is subscribed to a product now.
    func isPurchased(_ product: Product) -> Bool {
        switch product.type {
        case .nonConsumable: purchasedNonConsumables.contains(product)
        case .nonRenewable: purchasedNonRenewableSubscriptions.contains(product)
        case .autoRenewable: purchasedSubscriptions.contains(product)
        default: false
        }
    }

    /// The data of a verified result; throws for unverified data, which the app must not trust.
    nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified(_, let error):
            throw StoreError.failedVerification(reason: error.localizedDescription)
        case .verified(let safe):
            return safe
        }
    }

    /// Reads what the customer is entitled to from `Transaction.currentEntitlements`.
    func updateCustomerProductStatus() async {
        var purchasedNonConsumables: [Product] = []
        var purchasedSubscriptions: [Product] = []
        var purchasedNonRenewableSubscriptions: [Product] = []
        var entitlements: [Transaction] = []

        // Iterate through all of the user's purchased products.
        for await result in Transaction.currentEntitlements {
            do {
                // Check whether the transaction is verified. If it isn't, catch the error and skip it.
                let transaction = try checkVerified(result)
                entitlements.append(transaction)
                switch transaction.productType {
                case .nonConsumable:
                    if let product = nonConsumables.first(where: { $0.id == transaction.productID }) {
                        purchasedNonConsumables.append(product)
                    }
                case .nonRenewable:
                    // The app decides how long a non-renewing subscription lasts: the season pass lasts the season.
                    if let product = nonRenewables.first(where: { $0.id == transaction.productID }) {
                        purchasedNonRenewableSubscriptions.append(product)
                    }
                case .autoRenewable:
                    if let product = subscriptions.first(where: { $0.id == transaction.productID }) {
                        purchasedSubscriptions.append(product)
                    }
                default:
                    break
                }
            } catch {
                Terminal.say("entitlement \(result.unsafePayloadValue.productID) \(error.localizedDescription)")
            }
        }

        self.purchasedNonConsumables = purchasedNonConsumables
        self.purchasedNonRenewableSubscriptions = purchasedNonRenewableSubscriptions
        self.purchasedSubscriptions = purchasedSubscriptions
        self.entitlements = entitlements
    }

    /// The statuses of each subscription group the app sells: one per subscription the customer has in the group,
    /// their own and any a family member shares.
    func subscriptionStatuses() async throws -> [(groupID: String, statuses: [Product.SubscriptionInfo.Status])] {
        var groups: [(groupID: String, statuses: [Product.SubscriptionInfo.Status])] = []
        for product in subscriptions {
            guard let subscription = product.subscription,
                  !groups.contains(where: { $0.groupID == subscription.subscriptionGroupID }) else { continue }
            groups.append((subscription.subscriptionGroupID, try await subscription.status))
        }
        return groups
    }

    private func sortByPrice(_ products: [Product]) -> [Product] {
        products.sorted { $0.price < $1.price }
    }
}
