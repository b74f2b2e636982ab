#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

// A terminal port of Apple's sample "Implementing a store in your app using the StoreKit API", written with the
// StoreKit 2 API only.
//
// Run it against a store configured like Xcode's StoreKit scheme option:
//
//   OPENSTOREKIT_CONFIG=Examples/Demo.storekit OPENSTOREKIT_DATA_DIR=/tmp/demo-store swift run ModernStore
//
// Purchases land in the data directory: `storekit tx list --data-dir /tmp/demo-store` lists them, and what
// `storekit purchase` or `storekit tx refund` do there reaches the running app through `Transaction.updates`.

let usage = "products, buy <product-id> [monthly], winback, entitlements, status, refund <transaction-id>, sync, help, quit"

if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    Terminal.say("""
    USAGE: ModernStore

    Commands, one per line: \(usage).
    `buy <product-id> monthly` bills a subscription monthly over a 12-month commitment, where its pricing terms
    offer it; `winback` buys back a lapsed subscription with the win-back offer its renewal info names.
    """)
    exit(0)
}

let store = Store(productIdentifiers: ProductIdentifiers.all)
await store.waitUntilLoaded()
Terminal.say("ModernStore: payments \(AppStore.canMakePayments ? "allowed" : "not allowed") in storefront \(await Storefront.current?.countryCode ?? "unknown")")

/// A subscription period in words: `month` or `2 weeks`; `counted`, `1 month`.
func describe(_ period: Product.SubscriptionPeriod, counted: Bool = false) -> String {
    let unit = period.unit.localizedDescription.lowercased()
    if period.value == 1 { return counted ? "1 \(unit)" : unit }
    return "\(period.value) \(unit)s"
}

/// The price line of a product: `Plus Monthly — $4.99 / month (com.example.demo.plus.monthly)`, with the monthly
/// plan of a subscription that offers one: `… / year or $3.50 / month for 1 year ($42.00) …`.
@MainActor
func describe(_ product: Product) -> String {
    var price = product.displayPrice
    if let subscription = product.subscription {
        price += " / \(describe(subscription.subscriptionPeriod))"
        if #available(iOS 26.4, macOS 26.4, *), let monthly = subscription.pricingTerms.first(where: { $0.billingPlanType == .monthly }) {
            let commitment = monthly.commitmentInfo
            price += " or \(monthly.billingDisplayPrice) / \(describe(monthly.billingPeriod)) for \(describe(commitment.period, counted: true)) (\(commitment.displayPrice))"
        }
    }
    return "\(product.displayName) — \(price) (\(product.id))\(store.isPurchased(product) ? " owned" : "")"
}

@MainActor
func showProducts() async {
    await store.requestProducts()
    for product in store.allProducts {
        Terminal.say(describe(product))
    }
    if !store.unavailableIdentifiers.isEmpty {
        Terminal.say("not for sale: \(store.unavailableIdentifiers.joined(separator: ", "))")
    }
}

@MainActor
func buy(_ words: [Substring]) async {
    guard let identifier = words.first else { return Terminal.say("usage: buy <product-id> [monthly]") }
    if store.allProducts.isEmpty { await store.requestProducts() }
    guard let product = store.allProducts.first(where: { $0.id == identifier }) else {
        return Terminal.say("no product \(identifier); type `products` to list them")
    }
    guard AppStore.canMakePayments else { return Terminal.say("this account may not make payments") }
    var options: Set<Product.PurchaseOption> = []
    if words.dropFirst().first == "monthly" {
        // Monthly billing over a 12-month commitment, which Apple's StoreKit sells from iOS 26.4.
        guard #available(iOS 26.4, macOS 26.4, *) else { return Terminal.say("monthly billing needs iOS 26.4 or later") }
        options.insert(.billingPlanType(.monthly))
    }
    do {
        try await store.purchase(product, options: options)
    } catch {
        Terminal.say("purchase of \(product.id) failed: \(error.localizedDescription)")
    }
}

/// Buys a lapsed subscription back with the win-back offer the App Store names in its renewal info.
@MainActor
func winBack() async {
    do {
        guard let (product, offer) = try await store.eligibleWinBackOffer() else {
            return Terminal.say("no win-back offer: the customer has no lapsed subscription with one to redeem")
        }
        try await store.purchase(product, options: [.winBackOffer(offer)])
    } catch {
        Terminal.say("win-back failed: \(error.localizedDescription)")
    }
}

@MainActor
func showEntitlements() async {
    await store.updateCustomerProductStatus()
    if store.entitlements.isEmpty { return Terminal.say("no entitlements") }
    for transaction in store.entitlements {
        Terminal.say("entitled \(transaction.productID) (transaction \(transaction.id))")
    }
}

/// The name a renewal state has in Apple's API: `subscribed`, `expired`, `inBillingRetryPeriod`, …
func name(of state: RenewalState) -> String {
    switch state {
    case .subscribed: "subscribed"
    case .expired: "expired"
    case .inBillingRetryPeriod: "inBillingRetryPeriod"
    case .inGracePeriod: "inGracePeriod"
    case .revoked: "revoked"
    default: "state \(state.rawValue)"
    }
}

@MainActor
func showStatus() async {
    do {
        let groups = try await store.subscriptionStatuses()
        if groups.isEmpty { return Terminal.say("the app sells no subscriptions") }
        for group in groups {
            if group.statuses.isEmpty { Terminal.say("status group \(group.groupID): not subscribed") }
            for status in group.statuses {
                let transaction = try store.checkVerified(status.transaction)
                let renewalInfo = try store.checkVerified(status.renewalInfo)
                var line = "status \(transaction.productID) \(name(of: status.state)) autoRenew=\(renewalInfo.willAutoRenew ? "on" : "off")"
                if let next = renewalInfo.autoRenewPreference, next != transaction.productID {
                    line += " renewsTo=\(next)"
                }
                if #available(iOS 26.4, macOS 26.4, *), let commitment = transaction.commitmentInfo {
                    line += " billing=monthly \(commitment.billingPeriodNumber)/\(commitment.totalBillingPeriods)"
                }
                if let expiration = transaction.expirationDate {
                    line += " expires=\(expiration.formatted(.iso8601))"
                }
                if !renewalInfo.eligibleWinBackOfferIDs.isEmpty {
                    line += " winBack=\(renewalInfo.eligibleWinBackOfferIDs.joined(separator: ","))"
                }
                Terminal.say(line)
            }
        }
    } catch {
        Terminal.say("status failed: \(error.localizedDescription)")
    }
}

@MainActor
func requestRefund(_ words: [Substring]) async {
    guard let text = words.first, let transactionID = UInt64(text) else {
        return Terminal.say("usage: refund <transaction-id>")
    }
    #if canImport(StoreKit)
    // On Apple platforms the refund sheet needs the app's window scene: call it from the app's UI.
    Terminal.say("refund \(transactionID): Transaction.beginRefundRequest(for:in:) needs a window scene; call it from the app's UI")
    #else
    // No screen here: OpenStoreKit's placeholder scene. The customer submits the request and the App Store approves
    // it; the refunded transaction arrives through `Transaction.updates`.
    do {
        let status = try await Transaction.beginRefundRequest(for: transactionID, in: UIWindowScene())
        Terminal.say("refund requested for \(transactionID): \(status == .success ? "success" : "userCancelled")")
    } catch {
        Terminal.say("refund request for \(transactionID) failed: \(error.localizedDescription)")
    }
    #endif
}

@MainActor
func syncPurchases() async {
    do {
        // Restore Purchases: only when the customer asks for it, as it may ask them to sign in.
        try await AppStore.sync()
        await store.updateCustomerProductStatus()
        Terminal.say("synced: \(store.entitlements.count) entitlements")
    } catch {
        Terminal.say("sync failed: \(error.localizedDescription)")
    }
}

Terminal.say("ready")
commands: while let line = await Terminal.readCommand() {
    let words = line.split(separator: " ")
    switch words.first ?? "" {
    case "": continue
    case "products": await showProducts()
    case "buy": await buy(Array(words.dropFirst()))
    case "winback": await winBack()
    case "entitlements": await showEntitlements()
    case "status": await showStatus()
    case "refund": await requestRefund(Array(words.dropFirst()))
    case "sync": await syncPurchases()
    case "help": Terminal.say(usage)
    case "quit", "exit": break commands
    default: Terminal.say("unknown command \(words[0]); type `help`")
    }
    Terminal.say("ready")
}
