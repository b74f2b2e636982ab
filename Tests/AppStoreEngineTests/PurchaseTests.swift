import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

@Suite("Purchases")
struct PurchaseTests {
    @Test("A purchase records price, currency, storefront and the clock's date")
    func purchaseRecordsTerms() async throws {
        let (store, clock) = try makeStore()
        try await clock.advance(by: 90)
        let record = try await store.buy("coins", quantity: 3)
        #expect(record.state == .purchased)
        #expect(record.origin == .purchase)
        #expect(record.originalID == record.id)
        #expect(record.quantity == 3)
        #expect(record.unitPrice == Decimal(string: "0.99"))
        #expect(record.amountCharged == Decimal(string: "2.97"))
        #expect(record.currency == "USD")
        #expect(record.storefront == "USA")
        #expect(record.storefrontID == "143441")
        #expect(record.purchaseDate == testStart.addingTimeInterval(90))
        #expect(record.productType == .consumable)
        #expect(String(record.id).hasPrefix("2000000"))
    }

    @Test("An auto-renewable subscription's first period ends one period after the purchase, shortened by the time rate",
          arguments: [(TimeRate.realTime, 31.0 * 86_400), (.monthlyRenewalEveryFiveMinutes, 300), (.oneRenewalEveryTenSeconds, 10)])
    func subscriptionExpiry(rate: TimeRate, length: TimeInterval) async throws {
        let (store, _) = try makeStore(settings: StoreSettings(timeRate: rate))
        let record = try await store.buy("monthly")
        #expect(record.subscriptionGroupID == "G1")
        #expect(record.expiresDate == testStart.addingTimeInterval(length))
        let other = try await store.buy("premium")
        #expect(other.expiresDate == nil && other.subscriptionGroupID == nil)
    }

    @Test("Transaction identifiers are numeric, unique and increasing", arguments: [ProductType.consumable, .nonConsumable, .nonRenewable])
    func identifiersIncrease(type: ProductType) async throws {
        let (store, _) = try makeStore()
        let product = testCatalog.products.first { $0.type == type }!
        let first = try await store.buy(product.id)
        let second = try await store.buy(product.id)
        #expect(second.id > first.id)
    }

    @Test("The account's storefront sets currency and storefront identifier")
    func storefrontSetsCurrency() async throws {
        let (store, _) = try makeStore()
        try await store.saveAccount(Account(id: "yuki", storefront: "JPN"))
        let record = try await store.buy("coins", account: "yuki")
        #expect(record.currency == "JPY")
        #expect(record.storefrontID == "143462")
    }

    @Test("Unknown products and bad quantities are refused without recording anything")
    func invalidRequestsRecordNothing() async throws {
        let (store, _) = try makeStore()
        await #expect(throws: StoreError.unknownProduct) { try await store.buy("nope") }
        await #expect(throws: StoreError.invalidQuantity) { try await store.buy("coins", quantity: 0) }
        await #expect(throws: StoreError.invalidQuantity) { try await store.buy("coins", quantity: 11) }
        #expect(try await store.transactions().isEmpty)
    }

    @Test("Only a test store back-dates a purchase: Production refuses one, saying so, and records nothing")
    func productionRefusesBackDating() async throws {
        let past = testStart.addingTimeInterval(-10 * 86_400)
        var request = PurchaseRequest(productID: "premium", bundleID: app)
        request.purchaseDate = past

        let (production, _) = try makeStore(settings: StoreSettings(environment: "Production"))
        let refusal = await #expect(throws: StoreError.invalidTransactionState) { try await production.purchase(request) }
        #expect(refusal?.message.contains("A Production store does not back-date purchases") == true)
        #expect(try await production.transactions().isEmpty)

        let (sandbox, _) = try makeStore(settings: StoreSettings(environment: "Sandbox"))
        #expect(try await sandbox.purchase(request).purchaseDate == past)
    }

    @Test("Buying an owned non-consumable makes a new regular transaction that is not charged")
    func repurchaseIsFree() async throws {
        let (store, clock) = try makeStore()
        let first = try await store.buy("premium")
        try await clock.advance(by: 3_600)
        let again = try await store.buy("premium")
        #expect(again.id != first.id)
        #expect(again.origin == .repurchase)
        #expect(again.state == .purchased)
        #expect(again.originalID == first.id)
        #expect(again.originalPurchaseDate == first.purchaseDate)
        #expect(again.purchaseDate == testStart.addingTimeInterval(3_600))
        #expect(again.amountCharged == 0)
        #expect(try await store.ownedProducts(accountID: StoreDefaults.accountID, bundleID: app).map(\.id) == [first.id])
    }

    @Test("Non-renewing subscriptions and consumables are charged every time")
    func repeatableProductsAreCharged() async throws {
        let (store, _) = try makeStore()
        for product in ["coins", "season.pass"] {
            _ = try await store.buy(product)
            let second = try await store.buy(product)
            #expect(second.origin == .purchase)
            #expect(second.amountCharged > 0)
            #expect(second.originalID == second.id)
        }
    }

    @Test("A restricted account's payment fails with paymentNotAllowed")
    func restrictedAccountFails() async throws {
        let (store, _) = try makeStore()
        try await store.saveAccount(Account(id: "kid", storefront: "USA", canMakePayments: false))
        let record = try await store.buy("coins", account: "kid")
        #expect(record.state == .failed(errorCode: 4))
        #expect(record.amountCharged == 0)
    }

    @Test("Failure injection fails purchases with the chosen error", arguments: [0, 11, 12, 13, 14])
    func failureInjection(code: Int) async throws {
        let (store, _) = try makeStore(settings: StoreSettings(failTransactionsEnabled: true, failureErrorCode: code))
        let record = try await store.buy("premium")
        #expect(record.state == .failed(errorCode: code))
        #expect(try await store.ownedProducts(accountID: StoreDefaults.accountID, bundleID: app).isEmpty)
    }

    @Test("Ask to Buy waits for approval; approval completes, decline fails")
    func askToBuy() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(askToBuyEnabled: true))
        let pending = try await store.buy("premium")
        #expect(pending.state == .pendingApproval)
        #expect(try await store.ownedProducts(accountID: StoreDefaults.accountID, bundleID: app).isEmpty)
        try await clock.advance(by: 60)
        let approved = try await store.approveAskToBuy(transactionID: pending.id)
        #expect(approved.state == .purchased)
        #expect(approved.purchaseDate == testStart.addingTimeInterval(60))
        #expect(try await store.ownedProducts(accountID: StoreDefaults.accountID, bundleID: app).count == 1)

        let other = try await store.buy("season.pass")
        let declined = try await store.declineAskToBuy(transactionID: other.id)
        #expect(declined.state == .declined)
        #expect(declined.amountCharged == 0)
        await #expect(throws: StoreError.invalidTransactionState) { try await store.approveAskToBuy(transactionID: other.id) }
    }

    @Test("An interrupted purchase completes once the issue is resolved")
    func interruptedPurchase() async throws {
        let (store, _) = try makeStore(settings: StoreSettings(interruptedPurchasesEnabled: true))
        let interrupted = try await store.buy("coins")
        #expect(interrupted.state == .interrupted)
        let resolved = try await store.resolveIssue(transactionID: interrupted.id)
        #expect(resolved.state == .purchased)
    }

    @Test("A purchase repeating an idempotency key returns the first purchase instead of buying again; another product under it is refused")
    func idempotencyKeys() async throws {
        let (store, _) = try makeStore()
        let request = PurchaseRequest(productID: "coins", bundleID: app, quantity: 2, idempotencyKey: "order-17")
        let first = try await store.purchase(request)
        let events = await store.events()
        let retried = try await store.purchase(request)
        #expect(retried == first)
        #expect(retried.idempotencyKey == "order-17")
        // The key belongs to the account in the app: another account's order-17 is its own purchase.
        var elsewhere = request
        elsewhere.accountID = "someone-else"
        #expect(try await store.purchase(elsewhere).id != first.id)
        let another = try await store.purchase(PurchaseRequest(productID: "coins", bundleID: app, quantity: 2, idempotencyKey: "order-18"))
        #expect(another.id != first.id)
        #expect(try await store.transactions().count == 3)
        #expect(try await store.notifications().count == 3, "the repeat wrote no notification")

        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await store.purchase(PurchaseRequest(productID: "premium", bundleID: app, idempotencyKey: "order-17"))
        }
        // The repeat announced nothing; the purchases for someone else and order-18 did.
        var announced = events.makeAsyncIterator()
        var firstUpdate: TransactionRecord?
        while firstUpdate == nil, let event = await announced.next() {
            if case .transactionUpdated(let record) = event { firstUpdate = record }
        }
        #expect(firstUpdate?.accountID == "someone-else")
    }
}

