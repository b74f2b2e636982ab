import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

extension DefaultQueueTests {
    /// A store written the way Apple's sample "Implementing a store in your app using the StoreKit API" writes one:
    /// a detached `Transaction.updates` listener, `Product.products(for:)`, `purchase()`, `currentEntitlements` and
    /// the subscription group's status. Its static calls use the process's store, so it runs on a `.process`
    /// session, one test at a time with the other users of the default queue.
    @Suite("Apple's StoreKit 2 sample store on a process session")
    struct AppleSampleStore {
        @Test("Products, purchases, the updates listener, entitlements, subscription status, refunds and both APIs together")
        func sampleStore() async throws {
            let clock = VirtualClock(start: testStart)
            let session = try SKTestSession(contentsOf: demoConfiguration, clock: clock)
            session.disableDialogs = true
            let store = await SampleStore()
            await store.requestProducts()
            let nonConsumables: [String] = await store.nonConsumables.map(\.id)
            let consumables: [String] = await store.consumables.map(\.id)
            let subscriptions: [String] = await store.subscriptions.map(\.id)
            let nonRenewables: [String] = await store.nonRenewables.map(\.id)
            #expect(nonConsumables == [Demo.darkTheme, Demo.premium], "sorted by price")
            #expect(consumables == [Demo.coins, Demo.bigCoins])
            #expect(subscriptions == ["com.example.demo.plus.weekly", Demo.monthly, Demo.yearly])
            #expect(nonRenewables == [Demo.seasonPass])

            // Buying through the store's purchase(_:) finishes at once and updates what the customer owns.
            let premium = try #require(await store.product(Demo.premium))
            #expect(try await store.purchase(premium)?.productID == Demo.premium)
            #expect(await store.purchasedNonConsumables.map(\.id) == [Demo.premium])
            let monthly = try #require(await store.product(Demo.monthly))
            #expect(try await store.purchase(monthly)?.productID == Demo.monthly)
            #expect(await store.subscriptionGroupStatus == .subscribed)
            #expect(await store.purchasedSubscriptions.map(\.id) == [Demo.monthly])

            // The Original API sees those purchases, and the modern API sees the Original API's.
            let observer = RecordingTransactionObserver(finishesTransactions: true)
            SKPaymentQueue.default().add(observer)
            defer { SKPaymentQueue.default().remove(observer) }
            let theme = try #require(try await ProductsFetcher.fetch([Demo.darkTheme], from: nil).products.first)
            SKPaymentQueue.default().add(SKPayment(product: theme))
            await SKPaymentQueue.default().waitUntilIdle()
            #expect(observer.updatedTransactions.contains { $0.transaction.payment.productIdentifier == Demo.darkTheme && $0.state == .purchased })
            await store.updateCustomerProductStatus()
            #expect(await store.purchasedNonConsumables.map(\.id) == [Demo.premium, Demo.darkTheme])
            SKPaymentQueue.default().restoreCompletedTransactions()
            await SKPaymentQueue.default().waitUntilIdle()
            let restored = Set(observer.updatedTransactions.filter { $0.state == .restored }.map(\.transaction.payment.productIdentifier))
            #expect(restored.isSuperset(of: [Demo.premium, Demo.monthly]), "the Original API restores what the modern API bought")

            // Purchases outside the app and renewals reach the detached listener, which updates the store.
            try session.buyProduct(productIdentifier: Demo.seasonPass)
            try await eventually { await store.purchasedNonRenewables.map(\.id) == [Demo.seasonPass] }
            try await session.advanceTime(by: 8 * 86_400)
            try await eventually { await store.handledUpdates.contains { $0.productID == Demo.monthly && $0.reason == .renewal } }
            #expect(await store.subscriptionGroupStatus == .subscribed)

            // A refund request the customer submits takes the product away once the update arrives.
            try await AppStore.sync()
            #expect(try await store.refund(Demo.premium) == .success)
            try await eventually { await store.purchasedNonConsumables.map(\.id) == [Demo.darkTheme] }

            // Expiring the subscription ends the entitlement.
            try session.expireSubscription(productIdentifier: Demo.monthly)
            await store.updateCustomerProductStatus()
            #expect(await store.subscriptionGroupStatus == .expired)
            #expect(await store.purchasedSubscriptions.isEmpty)
            await store.stopListening()
        }
    }
}

/// The store of Apple's StoreKit 2 sample, without SwiftUI: what a customer owns, kept current by a detached
/// `Transaction.updates` listener.
@MainActor
final class SampleStore {
    enum StoreError: Error { case failedVerification }

    private(set) var consumables: [Product] = []
    private(set) var nonConsumables: [Product] = []
    private(set) var subscriptions: [Product] = []
    private(set) var nonRenewables: [Product] = []
    private(set) var purchasedNonConsumables: [Product] = []
    private(set) var purchasedNonRenewables: [Product] = []
    private(set) var purchasedSubscriptions: [Product] = []
    private(set) var subscriptionGroupStatus: Product.SubscriptionInfo.RenewalState?
    /// The transactions the listener handled, oldest first.
    private(set) var handledUpdates: [Transaction] = []
    private var updateListenerTask: Task<Void, any Error>?

    init() {
        updateListenerTask = listenForTransactions()
    }

    func stopListening() {
        updateListenerTask?.cancel()
    }

    nonisolated func listenForTransactions() -> Task<Void, any Error> {
        Task.detached {
            for await result in Transaction.updates {
                do {
                    let transaction = try self.checkVerified(result)
                    await self.updateCustomerProductStatus()
                    await transaction.finish()
                    await self.noteUpdate(transaction)
                } catch {
                    print("Transaction failed verification")
                }
            }
        }
    }

    private func noteUpdate(_ transaction: Transaction) { handledUpdates.append(transaction) }

    func product(_ id: String) -> Product? {
        (consumables + nonConsumables + subscriptions + nonRenewables).first { $0.id == id }
    }

    func requestProducts() async {
        do {
            let ids = [Demo.coins, Demo.bigCoins, Demo.premium, Demo.darkTheme, Demo.seasonPass, Demo.monthly, Demo.yearly, "com.example.demo.plus.weekly"]
            let storeProducts = try await Product.products(for: ids)
            var newConsumables: [Product] = [], newNonConsumables: [Product] = [], newSubscriptions: [Product] = [], newNonRenewables: [Product] = []
            for product in storeProducts {
                switch product.type {
                case .consumable: newConsumables.append(product)
                case .nonConsumable: newNonConsumables.append(product)
                case .autoRenewable: newSubscriptions.append(product)
                case .nonRenewable: newNonRenewables.append(product)
                default: print("Unknown product")
                }
            }
            consumables = sortByPrice(newConsumables)
            nonConsumables = sortByPrice(newNonConsumables)
            subscriptions = sortByPrice(newSubscriptions)
            nonRenewables = sortByPrice(newNonRenewables)
        } catch {
            print("Failed product request from the App Store server: \(error)")
        }
    }

    func purchase(_ product: Product) async throws -> Transaction? {
        let result = try await product.purchase()
        switch result {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            await updateCustomerProductStatus()
            await transaction.finish()
            return transaction
        case .userCancelled, .pending:
            return nil
        }
    }

    func refund(_ productID: String) async throws -> Transaction.RefundRequestStatus? {
        guard let result = await Transaction.latest(for: productID) else { return nil }
        return try await checkVerified(result).beginRefundRequest(in: UIWindowScene())
    }

    nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified: throw StoreError.failedVerification
        case .verified(let safe): return safe
        }
    }

    func updateCustomerProductStatus() async {
        var owned: [Product] = [], renewables: [Product] = [], subscribed: [Product] = []
        for await result in Transaction.currentEntitlements {
            do {
                let transaction = try checkVerified(result)
                switch transaction.productType {
                case .nonConsumable:
                    if let product = nonConsumables.first(where: { $0.id == transaction.productID }) { owned.append(product) }
                case .nonRenewable:
                    if let product = nonRenewables.first(where: { $0.id == transaction.productID }) { renewables.append(product) }
                case .autoRenewable:
                    if let product = subscriptions.first(where: { $0.id == transaction.productID }) { subscribed.append(product) }
                default:
                    break
                }
            } catch {
                print("Transaction failed verification")
            }
        }
        purchasedNonConsumables = Array(sortByPrice(owned).reversed())
        purchasedNonRenewables = renewables
        purchasedSubscriptions = subscribed
        subscriptionGroupStatus = try? await subscriptions.first?.subscription?.status.max { lhs, rhs in
            lhs.state.rawValue < rhs.state.rawValue
        }?.state
    }

    private func sortByPrice(_ products: [Product]) -> [Product] {
        products.sorted { $0.price < $1.price }
    }
}
