import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Buying and finishing")
struct PurchaseTests {
    @Test(
        "A payment goes purchasing, then purchased, for every kind of one-time product",
        arguments: [Demo.coins, Demo.premium, Demo.seasonPass]
    )
    func purchaseGoesThroughPurchasing(product: String) async throws {
        let harness = try Harness()
        try await harness.buy(product)
        let purchased = try await harness.spy.waitForTransaction(product, .purchased)
        let states = harness.spy.updates.filter { $0.object == purchased.object }.map(\.state)
        #expect(states == [.purchasing, .purchased])
        let identifier = try #require(purchased.identifier)
        let record = try #require(harness.session.allTransactions().first { String($0.identifier) == identifier })
        #expect(record.productIdentifier == product)
        #expect(record.state == .purchased)
        let transaction = try harness.transaction(purchased)
        #expect(transaction.transactionDate == record.purchaseDate)
        #expect(transaction.error == nil)
        #expect(harness.queue.transactions.count == 1)
    }

    @Test("Adding the same payment twice makes two transactions and charges twice")
    func samePaymentTwice() async throws {
        let harness = try Harness()
        let product = try #require(try await harness.products(Demo.coins)[Demo.coins])
        let payment = SKPayment(product: product)
        harness.queue.add(payment)
        harness.queue.add(payment)
        let first = try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        let second = try await harness.spy.waitForTransaction(Demo.coins, .purchased, after: 1)
        #expect(first.object != second.object)
        #expect(first.identifier != second.identifier)
        #expect(harness.session.allTransactions().count == 2)
    }

    @Test("A consumable can be bought several at a time")
    func quantity() async throws {
        let harness = try Harness()
        try await harness.buy(Demo.coins, quantity: 3)
        let purchased = try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        #expect(purchased.quantity == 3)
        let record = try #require(try await harness.session.engine.transactions().first)
        #expect(record.quantity == 3)
        #expect(record.amountCharged == Decimal(string: "2.97"))
    }

    @Test("Finishing a transaction removes it from the queue and tells the observers")
    func finishRemoves() async throws {
        let harness = try Harness()
        try await harness.buy(Demo.premium)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        harness.queue.finishTransaction(try harness.transaction(purchased))
        #expect(harness.queue.transactions.isEmpty)
        let removed = try await harness.spy.wait(for: "removed") { log in
            log.lazy.compactMap { event -> [TransactionView]? in
                if case .removed(let views) = event { return views }
                return nil
            }.first
        }
        #expect(removed.map(\.object) == [purchased.object])
        let environment = harness.session.environment
        let unfinished = try await harness.session.engine.unfinishedTransactions(
            accountID: environment.accountID, bundleID: environment.bundleID, deviceID: environment.deviceID
        )
        #expect(unfinished.isEmpty)
    }

    @Test("Buying a non-consumable the customer owns makes a new purchased transaction without charging again")
    func repurchaseOwnedNonConsumable() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.premium)
        let first = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        try await harness.buy(Demo.premium)
        let second = try await harness.spy.waitForTransaction(Demo.premium, .purchased, after: 1)
        #expect(first.identifier != second.identifier)
        let records = try await harness.session.engine.transactions()
        #expect(records.count == 2)
        #expect(records[1].origin == .repurchase)
        #expect(records[1].amountCharged == 0)
    }

    @Test("A product the store does not sell fails the payment with paymentInvalid")
    func unknownProduct() async throws {
        let harness = try Harness()
        let payment = SKMutablePayment()
        payment.productIdentifier = "com.example.demo.nothing"
        harness.queue.add(payment)
        let failed = try await harness.spy.waitForTransaction("com.example.demo.nothing", .failed)
        #expect(failed.errorCode == .paymentInvalid)
        #expect(failed.identifier == nil)
    }

    @Test("A payment with requestData fails with unauthorizedRequestData")
    func requestData() async throws {
        let harness = try Harness()
        let product = try #require(try await harness.products(Demo.coins)[Demo.coins])
        let payment = SKMutablePayment(product: product)
        payment.requestData = Data("x".utf8)
        harness.queue.add(payment)
        let failed = try await harness.spy.waitForTransaction(Demo.coins, .failed)
        #expect(failed.errorCode == .unauthorizedRequestData)
        #expect(harness.session.allTransactions().isEmpty)
    }

    @Test("A restricted account cannot make payments, and its purchases fail with paymentNotAllowed")
    func restrictedAccount() async throws {
        let harness = try Harness()
        #expect(harness.queue.canMakePayments())
        harness.session.canMakePayments = false
        #expect(!harness.queue.canMakePayments())
        try await harness.buy(Demo.coins)
        let failed = try await harness.spy.waitForTransaction(Demo.coins, .failed)
        #expect(failed.errorCode == .paymentNotAllowed)
    }

    @Test("The payment's applicationUsername and Ask to Buy simulation reach the store")
    func paymentOptions() async throws {
        let harness = try Harness()
        let product = try #require(try await harness.products(Demo.premium)[Demo.premium])
        let payment = SKMutablePayment(product: product)
        let token = UUID()
        payment.applicationUsername = token.uuidString
        payment.simulatesAskToBuyInSandbox = true
        harness.queue.add(payment)
        try await harness.spy.waitForTransaction(Demo.premium, .deferred)
        let record = try #require(try await harness.session.engine.transactions().first)
        #expect(record.applicationUsername == token.uuidString)
        #expect(record.appAccountToken == token)
        #expect(record.state == .pendingApproval)
    }
}
