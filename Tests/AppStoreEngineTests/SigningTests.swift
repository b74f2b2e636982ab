import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

@Suite("Signed transactions and app receipts")
struct SigningTests {
    let device = UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")!

    func verifier(_ store: StoreEngine) throws -> JWSVerifier {
        try JWSVerifier(rootCertificates: [try store.signer.certificateAuthority.jwsRootCertificateDER], bundleID: app, environment: .sandbox)
    }

    @Test("A signed transaction carries Apple's fields and verifies against the store's root", arguments: ["coins", "premium", "season.pass"])
    func signedTransactionVerifies(productID: String) async throws {
        let (store, clock) = try makeStore()
        let record = try await store.buy(productID, quantity: productID == "coins" ? 2 : 1)
        try await clock.advance(by: 5)
        let token = try await store.signedTransaction(id: record.id)
        let payload = try await verifier(store).verifyTransaction(token).get()
        #expect(payload.transactionId == String(record.id))
        #expect(payload.originalTransactionId == String(record.originalID))
        #expect(payload.productId == productID)
        #expect(payload.bundleId == app)
        #expect(payload.type == record.productType)
        #expect(payload.purchaseDate == record.purchaseDate)
        #expect(payload.signedDate == testStart.addingTimeInterval(5))
        #expect(payload.quantity == Int32(record.quantity))
        #expect(payload.price == Int64(truncating: NSDecimalNumber(decimal: record.unitPrice * 1000)) * Int64(record.quantity))
        #expect(payload.currency == "USD")
        #expect(payload.storefront == "USA")
        #expect(payload.storefrontId == "143441")
        #expect(payload.environment == .sandbox)
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.transactionReason == .purchase)
        #expect(payload.revocationDate == nil)
    }

    @Test("Signing, done off the engine, claims the environment the settings name from the moment they change")
    func environmentFollowsSettings() async throws {
        let (store, _) = try makeStore(settings: StoreSettings(environment: "Xcode"))
        let record = try await store.buy("premium")
        #expect(try CompactJWS(store.signedTransaction(record)).decodePayload(as: JWSTransactionDecodedPayload.self).environment == .xcode)
        try await store.updateSettings { $0.environment = "Production" }
        #expect(store.environment == .production)
        let production = try JWSVerifier(
            rootCertificates: [try store.signer.certificateAuthority.jwsRootCertificateDER], bundleID: app, environment: .production
        )
        #expect(try await production.verifyTransaction(store.signedTransaction(record)).get().environment == .production)
    }

    @Test("A subscription's signed form carries its group, expiry and web order line item")
    func subscriptionPayload() async throws {
        let (store, _) = try makeStore()
        let record = try await store.buy("monthly", device: device)
        let payload = try await verifier(store).verifyTransaction(try await store.signedTransaction(id: record.id)).get()
        #expect(payload.type == .autoRenewable)
        #expect(payload.subscriptionGroupIdentifier == "G1")
        #expect(payload.expiresDate == record.expiresDate)
        #expect(payload.webOrderLineItemId == String(record.id))
        let receiptVerifier = try ReceiptVerifier(rootCertificates: [try store.signer.certificateAuthority.receiptRootCertificateDER], bundleID: app)
        let receipt = try await receiptVerifier.verify(try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device), deviceIdentifier: device).get()
        #expect(receipt.inAppPurchases.first?.expiresDate == record.expiresDate)
        #expect(receipt.inAppPurchases.first?.webOrderLineItemID == Int64(record.id))
    }

    @Test("A refunded transaction's signed form says when and why")
    func refundedTransactionSaysSo() async throws {
        let (store, _) = try makeStore()
        let record = try await store.buy("premium")
        _ = try await store.refund(transactionID: record.id, reason: .refundedDueToIssue)
        let payload = try await verifier(store).verifyTransaction(try await store.signedTransaction(id: record.id)).get()
        #expect(payload.revocationDate == testStart)
        #expect(payload.revocationReason == .refundedDueToIssue)
        #expect(payload.revocationType == .refundFull)
    }

    @Test("Transactions that never completed have no signed form")
    func pendingIsNotSigned() async throws {
        let (store, _) = try makeStore(settings: StoreSettings(askToBuyEnabled: true))
        let pending = try await store.buy("premium")
        await #expect(throws: StoreError.invalidTransactionState) { try await store.signedTransaction(id: pending.id) }
    }

    @Test("The receipt lists non-consumables, non-renewing subscriptions and unfinished consumables of the device")
    func receiptContents() async throws {
        let (store, _) = try makeStore()
        let premium = try await store.buy("premium", device: device)
        let pass = try await store.buy("season.pass", device: device)
        let coins = try await store.buy("coins", quantity: 3, device: device)
        _ = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device)
        let receiptVerifier = try ReceiptVerifier(rootCertificates: [try store.signer.certificateAuthority.receiptRootCertificateDER], bundleID: app)

        let data = try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device)
        let receipt = try await receiptVerifier.verify(data, deviceIdentifier: device).get()
        #expect(receipt.bundleID == app)
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.creationDate == testStart)
        // A receipt's SET OF in-app records is in DER order, not purchase order.
        let listed = receipt.inAppPurchases.sorted { $0.transactionID < $1.transactionID }
        #expect(listed.map(\.transactionID) == [premium, pass, coins].map { String($0.id) })
        #expect(listed.map(\.productType) == [.nonConsumable, .nonRenewable, .consumable])
        #expect(listed.last?.quantity == 3)

        try await store.finish(transactionID: coins.id, deviceID: device)
        let afterFinish = try await receiptVerifier.verify(try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device), deviceIdentifier: device).get()
        #expect(Set(afterFinish.inAppPurchases.map(\.productID)) == ["premium", "season.pass"])

        _ = try await store.refund(transactionID: premium.id)
        let afterRefund = try await receiptVerifier.verify(try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device), deviceIdentifier: device).get()
        #expect(afterRefund.inAppPurchases.first { $0.productID == "premium" }?.cancellationDate == testStart)
    }

    @Test("A receipt is built once and reused until the purchases it lists change")
    func receiptIsCached() async throws {
        let (store, clock) = try makeStore()
        _ = try await store.buy("premium", device: device)
        let first = try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device)
        try await clock.advance(by: 60)
        #expect(try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device) == first)
        _ = try await store.buy("season.pass", device: device)
        #expect(try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device) != first)
    }

    @Test("A receipt for another device does not verify with this device's identifier")
    func receiptIsBoundToDevice() async throws {
        let (store, _) = try makeStore()
        _ = try await store.buy("premium", device: device)
        let data = try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device)
        let receiptVerifier = try ReceiptVerifier(rootCertificates: [try store.signer.certificateAuthority.receiptRootCertificateDER], bundleID: app)
        let result = await receiptVerifier.verify(data, deviceIdentifier: UUID())
        #expect(throws: ReceiptVerificationFailure.self) { try result.get() }
    }

    @Test("Renewal info, in the Server API's and the device's signed forms and in notifications, carries the subscriber's appTransactionId, the one its transactions and app transaction carry")
    func renewalInfoCarriesAppTransactionID() async throws {
        let (store, _) = try makeStore()
        let record = try await store.buy("monthly", account: "alice")
        _ = try await store.buy("monthly", account: "bob")
        let expected = store.appTransactionID(accountID: "alice", bundleID: app)
        #expect(expected != store.appTransactionID(accountID: "bob", bundleID: app))
        #expect(expected != store.appTransactionID(accountID: "alice", bundleID: "com.example.other"))
        let verifier = try verifier(store)
        #expect(try await verifier.verifyTransaction(store.signedTransaction(record)).get().appTransactionId == expected)
        #expect(try await verifier.verifyAppTransaction(store.signedAppTransaction(accountID: "alice", bundleID: app)).get().appTransactionId == expected)

        let renewalInfo = try await verifier.verifyRenewalInfo(store.signedRenewalInfo(subscription: record.originalID)).get()
        #expect(renewalInfo.appTransactionId == expected)
        let onDevice = try await store.signedRenewalInfo(subscriptions: [record.originalID], deviceVerificationID: device)
        #expect(try await verifier.verifyRenewalInfo(try #require(onDevice.first)).get().appTransactionId == expected)

        let subscribed = try #require(try await store.notifications().first { $0.transactionID == record.id })
        let notification = try await verifier.verifyNotification(store.signedNotification(subscribed)).get()
        let signedRenewalInfo = try #require(notification.data?.signedRenewalInfo)
        #expect(try await verifier.verifyRenewalInfo(signedRenewalInfo).get().appTransactionId == expected)
        #expect(try await verifier.verifyTransaction(try #require(notification.data?.signedTransactionInfo)).get().appTransactionId == expected)
    }

    @Test("A Production app transaction and receipt are dated and versioned by the account's first download, the same from every engine on the storage and every later request; the device's version is the current one")
    func productionAppTransactionFollowsTheDownload() async throws {
        let storage = InMemoryStorage()
        let tenant = UUID().uuidString
        let (store, clock) = try makeStore(settings: StoreSettings(environment: "Production"), storage: storage, tenant: tenant)
        let (other, otherClock) = try makeStore(settings: StoreSettings(environment: "Production"), storage: storage, tenant: tenant)
        let verifier = try JWSVerifier(rootCertificates: [try store.signer.certificateAuthority.jwsRootCertificateDER], bundleID: app, environment: .production)
        func appTransaction(_ token: String) async throws -> AppTransactionPayload { try await verifier.verifyAppTransaction(token).get() }

        try await clock.advance(by: 60)
        let downloaded = testStart.addingTimeInterval(60)
        let first = try await appTransaction(store.signedAppTransaction(accountID: "ana", bundleID: app, deviceVerificationID: device, appVersion: "3"))
        #expect(first.originalPurchaseDate == downloaded)
        #expect(first.originalApplicationVersion == "3" && first.applicationVersion == "3")

        // A day later the device runs version 4, and the other engine (another server on the storage) is asked.
        try await clock.advance(by: 86_400)
        try await otherClock.advance(by: 86_460)
        let updated = try await appTransaction(other.signedAppTransaction(accountID: "ana", bundleID: app, deviceVerificationID: device, appVersion: "4"))
        #expect(updated.originalPurchaseDate == downloaded)
        #expect(updated.originalApplicationVersion == "3" && updated.applicationVersion == "4")
        // What a backend gets from the App Store Server API, later still: the same download.
        try await clock.advance(by: 3_600)
        let atServer = try await appTransaction(store.signedAppTransaction(accountID: "ana", bundleID: app))
        #expect(atServer.originalPurchaseDate == downloaded && atServer.originalApplicationVersion == "3" && atServer.applicationVersion == "4")

        // The receipt says the same, and saving the account (a storefront change) keeps the download.
        try await store.saveAccount(Account(id: "ana", storefront: "FRA"))
        let receiptVerifier = try ReceiptVerifier(rootCertificates: [try store.signer.certificateAuthority.receiptRootCertificateDER], bundleID: app)
        let receipt = try await receiptVerifier.verify(
            try await store.appReceipt(accountID: "ana", bundleID: app, deviceID: device, appVersion: "4"), deviceIdentifier: device
        ).get()
        #expect(receipt.originalPurchaseDate == downloaded && receipt.originalAppVersion == "3" && receipt.appVersion == "4")

        // An account whose first contact is a purchase downloaded the app then.
        let bought = try await store.buy("premium", account: "bo")
        try await clock.advance(by: 600)
        let buyer = try await appTransaction(store.signedAppTransaction(accountID: "bo", bundleID: app))
        #expect(buyer.originalPurchaseDate == bought.purchaseDate && buyer.originalApplicationVersion == StoreDefaults.appVersion)

        // The sandbox says "1.0" for the original version, as Apple's does, and still dates the download.
        let (sandbox, _) = try makeStore(settings: StoreSettings(environment: "Sandbox"))
        let sandboxed = try CompactJWS(try await sandbox.signedAppTransaction(accountID: "ana", bundleID: app, deviceVerificationID: device, appVersion: "3"))
            .decodePayload(as: AppTransactionPayload.self)
        #expect(sandboxed.originalApplicationVersion == "1.0" && sandboxed.applicationVersion == "3" && sandboxed.originalPurchaseDate == testStart)
    }

    @Test("An appTransactionId leads back to its account in the app; another app's, a transaction's or an unknown one to none")
    func appTransactionIDFindsItsAccount() async throws {
        let (store, _) = try makeStore()
        let record = try await store.buy("coins", account: "alice")
        try await store.saveAccount(Account(id: "carol", storefront: "USA"))
        #expect(try await store.account(appTransactionID: store.appTransactionID(accountID: "alice", bundleID: app), bundleID: app) == "alice")
        #expect(try await store.account(appTransactionID: store.appTransactionID(accountID: "carol", bundleID: app), bundleID: app) == "carol", "an account that never bought has its app transaction too")
        #expect(try await store.account(appTransactionID: store.appTransactionID(accountID: StoreDefaults.accountID, bundleID: app), bundleID: app) == StoreDefaults.accountID)
        #expect(try await store.account(appTransactionID: store.appTransactionID(accountID: "alice", bundleID: "com.example.other"), bundleID: app) == nil)
        #expect(try await store.account(appTransactionID: String(record.id), bundleID: app) == nil)
        #expect(try await store.account(appTransactionID: "7000000000000000000", bundleID: app) == nil)
    }
}
