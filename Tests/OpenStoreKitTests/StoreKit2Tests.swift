import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import TestProcesses
import Testing

/// The StoreKit 2 API on a session's store: each test binds the static API to an isolated session with
/// `SKTestSession.run`, so the tests run in parallel, each on a store of its own.
@Suite("The StoreKit 2 API")
struct StoreKit2Tests {
    let month: TimeInterval = 31 * 86_400

    func makeSession() throws -> SKTestSession {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        return session
    }

    @Test("Product.products(for:) loads what the store sells, localized and priced, and leaves out unknown identifiers")
    func products() async throws {
        let session = try makeSession()
        try await session.run {
            let products = try await Product.products(for: [Demo.premium, Demo.monthly, Demo.coins, Demo.seasonPass, "com.example.unknown"])
            #expect(Set(products.map(\.id)) == [Demo.premium, Demo.monthly, Demo.coins, Demo.seasonPass])
            let premium = try #require(products.first { $0.id == Demo.premium })
            #expect(premium.type == .nonConsumable)
            #expect(premium.displayName == "Premium")
            #expect(premium.price == Decimal(string: "9.99"))
            #expect(premium.displayPrice == "$9.99")
            #expect(premium.isFamilyShareable)
            #expect(premium.subscription == nil)
            #expect(premium.price.formatted(premium.priceFormatStyle) == "$9.99")
            #expect(products.first { $0.id == Demo.coins }?.type == .consumable)
            #expect(products.first { $0.id == Demo.seasonPass }?.type == .nonRenewable)

            let monthly = try #require(products.first { $0.id == Demo.monthly })
            #expect(monthly.type == .autoRenewable)
            let subscription = try #require(monthly.subscription)
            #expect(subscription.subscriptionGroupID == "DE0A0300")
            #expect(subscription.groupDisplayName == "Demo Plus")
            #expect(subscription.groupLevel == 2)
            #expect(subscription.subscriptionPeriod == .monthly)
            #expect(subscription.introductoryOffer?.paymentMode == .freeTrial)
            #expect(subscription.introductoryOffer?.period == .weekly)
            #expect(subscription.introductoryOffer?.id == nil)
            #expect(subscription.winBackOffers.map(\.id) == ["plus.monthly.winback"])
            #expect(await subscription.isEligibleForIntroOffer)
            let json = try JSONSerialization.jsonObject(with: monthly.jsonRepresentation) as? [String: Any]
            #expect(json?["id"] as? String == Demo.monthly)
        }
        session.storefront = "FRA"
        session.locale = Locale(identifier: "fr_FR")
        try await session.run {
            let premium = try #require(try await Product.products(for: [Demo.coins]).first)
            #expect(premium.displayName == "100 pièces")
            #expect(try await Product.products(for: [Demo.monthly]).first?.subscription?.groupDisplayName == "Démo Plus")
            #expect(premium.displayPrice.contains("€"))
        }
    }

    @Test("A purchase returns a verified transaction signed for this device; it is an entitlement and unfinished until finish()")
    func purchase() async throws {
        let session = try makeSession()
        try await session.run {
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let token = UUID()
            let result = try await premium.purchase(options: [.appAccountToken(token)])
            guard case .success(.verified(let transaction)) = result else {
                Issue.record("expected a verified purchase, got \(result)")
                return
            }
            #expect(transaction.productID == Demo.premium)
            #expect(transaction.productType == .nonConsumable)
            #expect(transaction.ownershipType == .purchased)
            #expect(transaction.purchasedQuantity == 1)
            #expect(transaction.appAccountToken == token)
            #expect(transaction.appBundleID == session.environment.bundleID)
            #expect(transaction.purchaseDate == testStart)
            #expect(transaction.storefront.countryCode == "USA")
            #expect(transaction.price == Decimal(string: "9.99"))
            #expect(transaction.currency?.identifier == "USD")
            #expect(transaction.reason == .purchase)
            #expect(transaction.environment == .xcode || transaction.environment == .sandbox)
            #expect(transaction.revocationDate == nil)
            #expect(!transaction.appTransactionID.isEmpty)
            let deviceID = try #require(AppStore.deviceVerificationID)
            #expect(transaction.deviceVerification == DeviceVerification.value(nonce: transaction.deviceVerificationNonce, deviceVerificationID: deviceID))

            #expect(await verifiedIDs(Transaction.currentEntitlements) == [transaction.id])
            #expect(await verifiedIDs(Transaction.unfinished) == [transaction.id])
            #expect(await verifiedIDs(Transaction.all) == [transaction.id])
            #expect(try await premium.latestTransaction?.payloadValue.id == transaction.id)
            await transaction.finish()
            #expect(await verifiedIDs(Transaction.unfinished).isEmpty)
            #expect(await verifiedIDs(Transaction.currentEntitlements(for: Demo.premium)) == [transaction.id])
        }
    }

    @Test("Consumables: quantity, and a finished consumable leaves Transaction.all")
    func consumables() async throws {
        let session = try makeSession()
        try await session.run {
            let coins = try #require(try await Product.products(for: [Demo.coins]).first)
            let transaction = try #require(try await coins.purchase(confirmIn: UIWindowScene(), options: [.quantity(3)]).verifiedTransaction)
            #expect(transaction.purchasedQuantity == 3)
            #expect(transaction.price == Decimal(string: "2.97"))
            #expect(await verifiedIDs(Transaction.currentEntitlements).isEmpty, "consumables are no entitlement")
            #expect(await verifiedIDs(Transaction.all) == [transaction.id])
            await transaction.finish()
            #expect(await verifiedIDs(Transaction.all).isEmpty)
            await #expect(throws: Product.PurchaseError.invalidQuantity) { try await coins.purchase(options: [.quantity(11)]) }
        }
    }

    @Test("A finished consumable leaves Transaction.latest(for:), Transaction.all(for:) and Product.latestTransaction; a refunded one stays")
    func finishedConsumablesLeaveTheHistory() async throws {
        let session = try makeSession()
        try await session.run {
            let coins = try #require(try await Product.products(for: [Demo.coins]).first)
            let first = try #require(try await coins.purchase().verifiedTransaction)
            #expect(await Transaction.latest(for: Demo.coins)?.unsafePayloadValue.id == first.id, "unfinished, it is the latest")
            await first.finish()
            #expect(await Transaction.latest(for: Demo.coins) == nil, "finished, it leaves the history")
            #expect(await coins.latestTransaction == nil)
            #expect(await verifiedIDs(Transaction.all(for: Demo.coins)).isEmpty)

            let second = try #require(try await coins.purchase().verifiedTransaction)
            await second.finish()
            try session.refundTransaction(identifier: Int(second.id))
            #expect(await Transaction.latest(for: Demo.coins)?.unsafePayloadValue.id == second.id, "refunded, it stays")
            #expect(await verifiedIDs(Transaction.all) == [second.id])
        }
    }

    @Test("With SKIncludeConsumableInAppPurchaseHistory, finished consumables stay in Transaction.all and Transaction.latest(for:)")
    func consumableHistoryOptIn() async throws {
        let session = try SKTestSession(
            contentsOf: demoConfiguration, scope: .isolated, includesConsumableInAppPurchaseHistory: true,
            clock: VirtualClock(start: testStart), transport: sessionTransport
        )
        #expect(session.environment.includesConsumableInAppPurchaseHistory)
        try await session.run {
            let coins = try #require(try await Product.products(for: [Demo.coins]).first)
            let transaction = try #require(try await coins.purchase().verifiedTransaction)
            await transaction.finish()
            #expect(await Transaction.latest(for: Demo.coins)?.unsafePayloadValue.id == transaction.id)
            #expect(await verifiedIDs(Transaction.all) == [transaction.id])
        }
    }

    @Test("introductoryOfferEligibility(compactJWS:): the signed decision replaces the store's eligibility check, through Product.purchase and SKTestSession.buyProduct; one that does not verify fails the purchase")
    func signedIntroductoryOfferEligibility() async throws {
        func signedSession() async throws -> (SKTestSession, PromotionalOfferSigner) {
            let session = try makeSession()
            let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "IAPKEY", bundleID: session.environment.bundleID)
            await session.engine.addPromotionalOfferKey(signer.key)
            return (session, signer)
        }
        let issuedAt = Int64(testStart.timeIntervalSince1970)

        // A new customer is eligible; the developer's server says no.
        let (refused, refusing) = try await signedSession()
        try await refused.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            #expect(await monthly.subscription?.isEligibleForIntroOffer == true)
            let jws = try refusing.signIntroductoryOfferEligibility(
                productID: Demo.monthly, allowIntroductoryOffer: false, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt
            )
            let transaction = try #require(try await monthly.purchase(options: [.introductoryOfferEligibility(compactJWS: jws)]).verifiedTransaction)
            #expect(transaction.offer == nil, "no free trial: the server's decision wins")
            #expect(transaction.price == monthly.price)
        }

        // The server says yes: the introductory offer applies, through StoreKit Test's purchase outside the app too.
        let (allowed, allowing) = try await signedSession()
        let allow = try allowing.signIntroductoryOfferEligibility(
            productID: Demo.monthly, allowIntroductoryOffer: true, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt
        )
        let bought = try await allowed.buyProduct(identifier: Demo.monthly, options: [.introductoryOfferEligibility(compactJWS: allow)])
        #expect(bought.offer?.type == .introductory)

        // A JWS for another product, or signed with a key the store does not know, fails the purchase.
        let (checked, checking) = try await signedSession()
        try await checked.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let otherProduct = try checking.signIntroductoryOfferEligibility(
                productID: Demo.yearly, allowIntroductoryOffer: true, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt
            )
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                try await monthly.purchase(options: [.introductoryOfferEligibility(compactJWS: otherProduct)])
            }
            let stranger = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "OTHERKEY", bundleID: checked.environment.bundleID)
            let unknownKey = try stranger.signIntroductoryOfferEligibility(
                productID: Demo.monthly, allowIntroductoryOffer: true, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt
            )
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                try await monthly.purchase(options: [.introductoryOfferEligibility(compactJWS: unknownKey)])
            }
        }
    }

    @Test("Promotional offers: a version 1 signature, a version 2 compact JWS, and SKTestSession.buyProduct's promotionalOffer(id:)")
    func promotionalOffers() async throws {
        let session = try makeSession()
        let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "DEMOKEY", bundleID: session.environment.bundleID)
        await session.engine.addPromotionalOfferKey(signer.key)
        let offerID = "plus.monthly.comeback"
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            #expect(monthly.subscription?.promotionalOffers.map(\.id) == [offerID])
            #expect(monthly.subscription?.promotionalOffers.first?.displayPrice == "$1.99")

            func signedV1() throws -> Product.PurchaseOption {
                let v1 = try signer.signV1(productID: Demo.monthly, offerID: offerID, nonce: UUID(), timestamp: Int64(testStart.timeIntervalSince1970 * 1000))
                let signature = try #require(Data(base64Encoded: v1.signature))
                return .promotionalOffer(offerID: offerID, keyID: v1.keyID, nonce: v1.nonce, signature: signature, timestamp: Int(v1.timestamp))
            }
            await #expect(throws: Product.PurchaseError.ineligibleForOffer, "a customer who never subscribed to the group") {
                try await monthly.purchase(options: [try signedV1()])
            }
            // A lapsed subscriber gets the offer.
            try session.buyProduct(productIdentifier: Demo.monthly)
            try session.expireSubscription(productIdentifier: Demo.monthly)
            let first = try #require(try await monthly.purchase(options: [try signedV1()]).verifiedTransaction)
            #expect(first.offer?.type == .promotional)
            #expect(first.offer?.id == offerID)
            #expect(first.price == Decimal(string: "1.99"))

        }
        // Version 2, for a lapsed subscriber of another store.
        let other = try makeSession()
        await other.engine.addPromotionalOfferKey(signer.key)
        try other.buyProduct(productIdentifier: Demo.monthly)
        try other.expireSubscription(productIdentifier: Demo.monthly)
        try await other.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let v2 = try signer.signV2(productID: Demo.monthly, offerID: offerID, issuerID: nil, nonce: UUID(), issuedAt: Int64(testStart.timeIntervalSince1970))
            let options = Set(Product.PurchaseOption.promotionalOffer(offerID, compactJWS: v2))
            let second = try #require(try await monthly.purchase(options: options).verifiedTransaction)
            #expect(second.offer?.type == .promotional)
            #expect(second.offer?.id == offerID)
        }
        let fresh = try makeSession()
        await #expect(throws: SKTestError.self, "a customer who never subscribed to the group") {
            try await fresh.buyProduct(identifier: Demo.monthly, options: [.promotionalOffer(id: offerID)])
        }
        try fresh.buyProduct(productIdentifier: Demo.monthly)
        try fresh.expireSubscription(productIdentifier: Demo.monthly)
        let promoted = try await fresh.buyProduct(identifier: Demo.monthly, options: [.promotionalOffer(id: offerID)])
        #expect(promoted.offer?.type == .promotional)
        #expect(promoted.offer?.id == offerID)
    }

    @Test("onStorefrontChange: a storefront that changed since the app last looked asks whether to continue", arguments: [false, true])
    func storefrontChangeDuringPurchase(shouldContinue: Bool) async throws {
        let session = try makeSession()
        var environment = session.environment
        let connection = StorefrontChangingConnection(base: environment.connection, engine: session.engine, accountID: environment.accountID, to: "GBR")
        environment.connection = connection
        environment.appDirectory = environment.appDirectory.appendingPathComponent("changing", isDirectory: true)
        let asked = Locked<[String]>([])
        try await StoreKitDevice.$bound.withValue(environment) {
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            connection.arm()
            let option = Product.PurchaseOption.onStorefrontChange { storefront in
                asked.withLock { $0.append(storefront.countryCode) }
                return shouldContinue
            }
            if shouldContinue {
                let transaction = try #require(try await premium.purchase(options: [option]).verifiedTransaction)
                #expect(transaction.storefront.countryCode == "GBR")
            } else {
                await #expect(throws: Product.PurchaseError.productUnavailable) { try await premium.purchase(options: [option]) }
                #expect(session.allTransactions().isEmpty)
            }
        }
        #expect(asked.current == ["GBR"])
    }

    @Test("The store's refusals become Apple's purchase errors; a failed Ask to Buy or interrupted purchase is pending")
    func purchaseErrors() async throws {
        let session = try makeSession()
        try await session.run {
            let products = try await Product.products(for: [Demo.premium, Demo.monthly])
            let premium = try #require(products.first { $0.id == Demo.premium })
            let monthly = try #require(products.first { $0.id == Demo.monthly })
            await #expect(throws: Product.PurchaseError.invalidOfferIdentifier) {
                try await monthly.purchase(options: [.codeOffer(referenceName: "No such code")])
            }
            let signature = Product.SubscriptionOffer.Signature(keyID: "KEY", nonce: UUID(), timestamp: 0, signature: Data(count: 70))
            await #expect(throws: Product.PurchaseError.self) { try await monthly.purchase(options: [.promotionalOffer(offerID: "none", signature: signature)]) }

            guard case .pending = try await premium.purchase(options: [.simulatesAskToBuyInSandbox(true)]) else {
                Issue.record("a purchase that simulates Ask to Buy is pending")
                return
            }
            #expect(session.allTransactions().last?.pendingAskToBuyConfirmation == true)

            session.interruptedPurchasesEnabled = true
            guard case .pending = try await premium.purchase() else {
                Issue.record("an interrupted purchase is pending")
                return
            }
            session.interruptedPurchasesEnabled = false
            session.canMakePayments = false
            await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await premium.purchase() }
            #expect(!AppStore.canMakePayments)
        }
    }

    @Test("Purchases made with the Original API are seen by the modern API, and the reverse")
    func bothAPIs() async throws {
        let session = try makeSession()
        let observer = RecordingTransactionObserver(finishesTransactions: false)
        session.paymentQueue.add(observer)
        let theme = try #require(try await ProductsFetcher.fetch([Demo.darkTheme], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: theme))
        await session.paymentQueue.waitUntilIdle()
        let original = try #require(observer.updatedTransactions.first { $0.state == .purchased }?.transaction)

        try await session.run {
            let entitlements = await verifiedTransactions(Transaction.currentEntitlements)
            #expect(entitlements.map(\.productID) == [Demo.darkTheme])
            #expect(entitlements.first.map { String($0.id) } == original.transactionIdentifier)
            #expect(await verifiedIDs(Transaction.unfinished).count == 1, "the Original API did not finish it")

            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let bought = try #require(try await premium.purchase().verifiedTransaction)
            await session.paymentQueue.waitUntilIdle()
            let seen = observer.updatedTransactions.filter { $0.state == .purchased }.map(\.transaction)
            #expect(seen.contains { $0.transactionIdentifier == String(bought.id) && $0.payment.productIdentifier == Demo.premium })

            // Finishing with the modern API takes it out of the payment queue.
            await bought.finish()
            await session.paymentQueue.waitUntilIdle()
            #expect(!session.paymentQueue.transactions.contains { $0.transactionIdentifier == String(bought.id) })
        }
    }

    @Test("Transaction.updates: unfinished first, then purchases outside the app, refunds and Ask to Buy approvals, not the app's own purchases")
    func updates() async throws {
        let session = try makeSession()
        try await session.run {
            let theme = try #require(try await Product.products(for: [Demo.darkTheme]).first)
            let unfinished = try #require(try await theme.purchase().verifiedTransaction)
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(session)
            #expect(try await updates.next().id == unfinished.id)

            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let own = try #require(try await premium.purchase().verifiedTransaction)

            try session.buyProduct(productIdentifier: Demo.seasonPass)
            let outside = try await updates.next()
            #expect(outside.productID == Demo.seasonPass, "the app's own purchase is not an update")

            try session.refundTransaction(identifier: Int(own.id))
            let refunded = try await updates.next()
            #expect(refunded.id == own.id)
            #expect(refunded.revocationType == .fullRefund)
            #expect(refunded.revocationTypeStringRepresentation == "REFUND_FULL")
            #expect(refunded.revocationDate == testStart)
            #expect(refunded.revocationReason == .other)

            session.askToBuyEnabled = true
            let coins = try #require(try await Product.products(for: [Demo.coins]).first)
            guard case .pending = try await coins.purchase() else {
                Issue.record("Ask to Buy purchases are pending")
                return
            }
            let request = try #require(session.allTransactions().last)
            try session.approveAskToBuyTransaction(identifier: request.identifier)
            let approved = try await updates.next()
            #expect(approved.productID == Demo.coins)
            #expect(approved.id == UInt64(request.identifier))
            updates.stop()
        }
    }

    @Test("A family member's shared purchase reaches Transaction.updates as familyShared; when the family stops sharing it, revoked as familyRevocation")
    func familyRevocation() async throws {
        let session = try makeSession()
        let engine = session.engine
        try await engine.joinFamily(accountID: session.environment.accountID, familyID: "family")
        try await engine.joinFamily(accountID: "parent", familyID: "family")
        try await session.run {
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(session)
            _ = try await engine.purchase(PurchaseRequest(productID: Demo.premium, accountID: "parent", bundleID: session.environment.bundleID))
            let shared = try await updates.next()
            #expect(shared.productID == Demo.premium && shared.ownershipType == .familyShared)
            #expect(shared.revocationType == nil && shared.revocationTypeStringRepresentation == nil)

            try await engine.leaveFamily(accountID: "parent")
            let revoked = try await updates.next()
            #expect(revoked.id == shared.id)
            #expect(revoked.revocationType == .familyRevocation)
            #expect(revoked.revocationTypeStringRepresentation == "FAMILY_REVOKE")
            #expect(await verifiedIDs(Transaction.currentEntitlements).isEmpty)
            updates.stop()
        }
    }

    @Test("At a fast time rate, a crossgrade to a shorter period leaves the current period the entitlement until it ends, then renews as the new product")
    func crossgradeKeepsTheCurrentPeriod() async throws {
        let session = try makeSession()
        session.timeRate = .monthlyRenewalEveryHour
        try await session.run {
            let products = try await Product.products(for: [Demo.yearly, Demo.monthly])
            let yearly = try #require(try await products.first { $0.id == Demo.yearly }?.purchase().verifiedTransaction)
            let end = try #require(yearly.expirationDate)
            try await session.advanceTime(by: 60)
            let change = try #require(try await products.first { $0.id == Demo.monthly }?.purchase().verifiedTransaction)
            #expect(change.purchaseDate == end, "the new product's service starts when the current period ends")
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [yearly.id], "the current period stays the entitlement")

            try await session.advanceTime(by: end.timeIntervalSince(testStart))
            let renewal = try #require(try await Transaction.latest(for: Demo.monthly)?.payloadValue)
            #expect(renewal.id != change.id && renewal.purchaseDate == end && renewal.originalID == yearly.id)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [renewal.id])
        }
    }

    @Test("Resolving a billing-retry issue delivers the recovered period through Transaction.updates")
    func billingRecoveryReachesUpdates() async throws {
        let session = try makeSession()
        session.shouldEnterBillingRetryOnRenewal = true
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let first = try #require(try await monthly.purchase().verifiedTransaction)
            await first.finish()
            try await session.advanceTime(by: 10 * 86_400)
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(session)
            session.shouldEnterBillingRetryOnRenewal = false
            try session.resolveIssueForTransaction(identifier: Int(first.id))
            let recovered = try await updates.next()
            #expect(recovered.originalID == first.id)
            #expect(recovered.id != first.id)
            #expect(recovered.purchaseDate == testStart.addingTimeInterval(10 * 86_400))
            updates.stop()
        }
    }

    @Test("Subscriptions: status and renewal info, intro-offer eligibility, renewals through updates, expiry")
    func subscriptions() async throws {
        let session = try makeSession()
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let subscription = try #require(monthly.subscription)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            await purchase.finish()
            #expect(purchase.offer?.type == .introductory)
            #expect(purchase.offer?.paymentMode == .freeTrial)
            #expect(purchase.expirationDate == testStart.addingTimeInterval(7 * 86_400))
            #expect(purchase.subscriptionGroupID == "DE0A0300")
            #expect(!(await subscription.isEligibleForIntroOffer))

            let status = try #require(try await subscription.status.first)
            #expect(status.state == .subscribed)
            #expect(try status.transaction.payloadValue.id == purchase.id)
            let renewal = try status.renewalInfo.payloadValue
            #expect(renewal.willAutoRenew)
            #expect(renewal.currentProductID == Demo.monthly)
            #expect(renewal.originalTransactionID == purchase.originalID)
            #expect(renewal.renewalDate == purchase.expirationDate)
            #expect(renewal.priceIncreaseStatus == .noIncreasePending)
            #expect(await purchase.subscriptionStatus?.state == .subscribed)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [purchase.id])

            let updates = UpdateCollector()
            updates.start()
            let statuses = StatusCollector()
            statuses.start()
            try await updates.waitForListening(session, count: 2)
            try await session.advanceTime(by: 8 * 86_400)
            let renewed = try await updates.next()
            #expect(renewed.reason == .renewal)
            #expect(renewed.originalID == purchase.id)
            #expect(renewed.offer == nil)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [renewed.id])
            let renewedStatus = try await statuses.next()
            #expect(renewedStatus.state == .subscribed)
            #expect(try renewedStatus.transaction.payloadValue.id == renewed.id)
            #expect(try await Product.SubscriptionInfo.status(transactionID: purchase.id)?.transaction.payloadValue.id == renewed.id)

            try session.expireSubscription(productIdentifier: Demo.monthly)
            let expired = try #require(try await Product.SubscriptionInfo.status(for: "DE0A0300").first)
            #expect(expired.state == .expired)
            #expect(try expired.renewalInfo.payloadValue.willAutoRenew == false)
            #expect(try await statuses.next().state == .expired)
            #expect(await verifiedIDs(Transaction.currentEntitlements).isEmpty)
            var groups: [String] = []
            for await group in Product.SubscriptionInfo.Status.all { groups.append(group.groupID) }
            #expect(groups == ["DE0A0300"])
            updates.stop()
            statuses.stop()
        }
    }

    @Test("Billing retry: in a grace period the customer stays entitled; without one the status is inBillingRetryPeriod and a message comes")
    func gracePeriod() async throws {
        let session = try makeSession()
        session.shouldEnterBillingRetryOnRenewal = true
        session.billingGracePeriodIsEnabled = true
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            try await session.advanceTime(by: 8 * 86_400)
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(status.state == .inGracePeriod)
            let renewal = try status.renewalInfo.payloadValue
            #expect(renewal.isInBillingRetry)
            #expect(renewal.gracePeriodExpirationDate != nil)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [purchase.id])
        }

        // Without a grace period the customer loses the service while the App Store retries, and the app gets a
        // billing-issue message.
        let retrying = try makeSession()
        retrying.shouldEnterBillingRetryOnRenewal = true
        try await retrying.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            _ = try await monthly.purchase()
            try await retrying.advanceTime(by: 8 * 86_400)
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(status.state == .inBillingRetryPeriod)
            #expect(try status.renewalInfo.payloadValue.isInBillingRetry)
            #expect(await verifiedIDs(Transaction.currentEntitlements).isEmpty)
            var messages = Message.messages.makeAsyncIterator()
            #expect(await messages.next()?.reason == .billingIssue)
        }
    }

    @Test("A refund request: submitted and approved, declined with REJECT, cancelled, and a duplicate")
    func refundRequests() async throws {
        let session = try makeSession()
        try await session.run {
            let products = try await Product.products(for: [Demo.premium, Demo.darkTheme])
            let premium = try #require(products.first { $0.id == Demo.premium })
            let theme = try #require(products.first { $0.id == Demo.darkTheme })
            let bought = try #require(try await premium.purchase().verifiedTransaction)
            let kept = try #require(try await theme.purchase().verifiedTransaction)
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(session)
            _ = try await updates.next()
            _ = try await updates.next()

            #expect(try await bought.beginRefundRequest(in: UIWindowScene()) == .success)
            let refunded = try await updates.next()
            #expect(refunded.id == bought.id)
            #expect(refunded.revocationDate != nil)
            await #expect(throws: Transaction.RefundRequestError.duplicateRequest) {
                try await Transaction.beginRefundRequest(for: bought.id, in: UIWindowScene())
            }

            session.refundRequestSheetAnswer = .submit(reason: "REJECT")
            #expect(try await kept.beginRefundRequest(in: UIWindowScene()) == .success)
            session.refundRequestSheetAnswer = .cancel
            #expect(try await kept.beginRefundRequest(in: UIWindowScene()) == .userCancelled)
            #expect(session.allTransactions().first { $0.identifier == Int(kept.id) }?.cancelDate == nil, "a declined request refunds nothing")
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [kept.id])
            updates.stop()
        }
    }

    @Test("With refund requests awaiting a decision, beginRefundRequest leaves the purchase entitled; the test's prorated refund reaches Transaction.updates, and a reversal brings the entitlement back")
    func pendingRefundRequest() async throws {
        let session = try makeSession()
        session.refundRequestsAwaitDecision = true
        try await session.run {
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let bought = try #require(try await premium.purchase().verifiedTransaction)
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(session)
            _ = try await updates.next()

            session.refundRequestSheetAnswer = .submit(reason: "UNINTENDED_PURCHASE")
            #expect(try await bought.beginRefundRequest(in: UIWindowScene()) == .success)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [bought.id], "a pending request refunds nothing")
            let asked = try #require(try await session.engine.transaction(bought.id).refundRequest)
            #expect(asked.reason == .unintendedPurchase, "the sheet's reason is Apple's consumptionRequestReason")
            await #expect(throws: Transaction.RefundRequestError.duplicateRequest, "one request waits at a time") {
                try await Transaction.beginRefundRequest(for: bought.id, in: UIWindowScene())
            }
            #expect(try await session.engine.transaction(bought.id).refundRequest?.status == .pending)

            try session.refundRequestForTransaction(identifier: Int(bought.id), revocationPercentage: 50_000)
            let refunded = try await updates.next()
            #expect(refunded.id == bought.id && refunded.revocationDate != nil)
            #expect(refunded.revocationType == .proratedRefund)
            #expect(bought.revocationType == nil)
            #expect(await verifiedIDs(Transaction.currentEntitlements).isEmpty)
            let payload = session.engine.transactionPayload(try await session.engine.transaction(bought.id))
            #expect(payload.revocationType == .refundProrated && payload.revocationPercentage == 50_000)

            try session.reverseRefundForTransaction(identifier: Int(bought.id))
            let restored = try await updates.next()
            #expect(restored.id == bought.id && restored.revocationDate == nil)
            #expect(await verifiedIDs(Transaction.currentEntitlements) == [bought.id])
            #expect(throws: SKTestError.self, "only a waiting request can be declined") {
                try session.declineRefundRequestForTransaction(identifier: Int(bought.id))
            }
            updates.stop()
        }
    }

    @Test("VerificationResult is .verified only for the store's own signature: a tampered token is .unverified(invalidSignature)")
    func tamperedToken() async throws {
        let session = try makeSession()
        try await session.run {
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            guard case .success(let result) = try await premium.purchase() else {
                Issue.record("expected a purchase")
                return
            }
            let parts = result.jwsRepresentation.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            #expect(result.headerData.isEmpty == false)
            #expect(result.signatureData.count == 64)
            #expect(result.signature.rawRepresentation == result.signatureData)
            #expect(result.signedData == Data("\(parts[0]).\(parts[1])".utf8))

            let payload = String(decoding: result.payloadData, as: UTF8.self)
            #expect(payload.contains("\"productId\":\"\(Demo.premium)\""))
            let forgedPayload = payload.replacingOccurrences(of: Demo.premium, with: Demo.darkTheme)
            let forged = Data(forgedPayload.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let device = StoreKitDevice.of(session.environment)
            let tampered = try #require(await device.verifyTransaction([parts[0], forged, parts[2]].joined(separator: ".")))
            guard case .unverified(let transaction, let error) = tampered else {
                Issue.record("a tampered token must not verify")
                return
            }
            #expect(transaction.productID == Demo.darkTheme)
            #expect(error == .invalidSignature)
            #expect(throws: VerificationResult<Transaction>.VerificationError.invalidSignature) { try tampered.payloadValue }

            // Signed for another device: the signature holds, the device verification does not.
            let otherDevice = try await session.connection.signedTransactions([result.unsafePayloadValue.id], deviceID: UUID())
            guard case .unverified(_, .invalidDeviceVerification) = try #require(await device.verifyTransaction(otherDevice[0])) else {
                Issue.record("a transaction signed for another device must fail device verification")
                return
            }
        }
    }

    @Test("Apple's SignedDataVerifier accepts every transaction, renewal info and app transaction the modern API hands out")
    func appleLibraryVerifies() async throws {
        let session = try makeSession()
        let batch: [[String: String]] = try await session.run {
            let products = try await Product.products(for: [Demo.premium, Demo.coins, Demo.seasonPass, Demo.monthly])
            var batch: [[String: String]] = []
            for product in products {
                guard case .success(let result) = try await product.purchase() else { continue }
                batch.append(["kind": "transaction", "data": result.jwsRepresentation])
            }
            for await result in Transaction.currentEntitlements { batch.append(["kind": "transaction", "data": result.jwsRepresentation]) }
            for status in try await Product.SubscriptionInfo.status(for: "DE0A0300") {
                batch.append(["kind": "renewal-info", "data": status.renewalInfo.jwsRepresentation])
            }
            batch.append(["kind": "app-transaction", "data": try await AppTransaction.shared.jwsRepresentation])
            return batch
        }
        #expect(batch.count == 9, "four purchases, three entitlements, one renewal info, one app transaction")
        try await appleVerifies(batch, session: session)
    }

    /// Verifies every item of `batch` (`kind` and `data`) with Apple's `SignedDataVerifier`, against the session's roots.
    func appleVerifies(_ batch: [[String: String]], session: SKTestSession) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modern-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let batchFile = directory.appendingPathComponent("batch.json")
        try JSONSerialization.data(withJSONObject: batch).write(to: batchFile)
        var arguments = [
            packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_batch.py").path, batchFile.path,
            "--bundle-id", session.environment.bundleID, "--environment", "SANDBOX",
        ]
        for (index, root) in try await session.connection.rootCertificates().enumerated() {
            let file = directory.appendingPathComponent("root\(index).der")
            try root.write(to: file)
            arguments += ["--root", file.path]
        }
        let result = try await ChildProcess.tool("python3", arguments).finished()
        #expect(result.status == 0, "\(result.errorOutput). Install Apple's library: pip install app-store-server-library==3.1.2")
        let line = try #require(result.output.split(separator: "\n").last.map(String.init))
        let results = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]])
        #expect(results.count == batch.count)
        for (item, result) in zip(batch, results) {
            #expect(result["status"] as? String == "OK", "\(item["kind"] ?? ""): \(result)")
        }
    }

    @Test("purchaseDate(_:renewalBehavior:) back-dates a subscription: it renewed every period up to now, or expired after its first; Apple's library verifies every period")
    func backDatedPurchases() async throws {
        let bought = testStart.addingTimeInterval(-100 * 86_400)
        let session = try makeSession()
        let first = try await session.buyProduct(identifier: Demo.monthly, options: [.purchaseDate(bought)])
        #expect(first.purchaseDate == bought)
        #expect(first.originalPurchaseDate == bought)
        let periods = session.allTransactions().filter { $0.originalTransactionIdentifier == Int(first.id) }
        #expect(periods.count == 5, "the trial week, then a renewal at each month's end up to now")
        #expect(zip(periods, periods.dropFirst()).allSatisfy { $0.expirationDate == $1.purchaseDate }, "each period starts where the last ended")
        let current = try #require(periods.last)
        #expect(current.purchaseDate <= testStart && testStart < (current.expirationDate ?? .distantPast))
        let batch: [[String: String]] = try await session.run {
            var batch: [[String: String]] = []
            for await result in Transaction.all(for: Demo.monthly) { batch.append(["kind": "transaction", "data": result.jwsRepresentation]) }
            let entitlement = try #require(await Transaction.latest(for: Demo.monthly))
            #expect(try entitlement.payloadValue.id == UInt64(current.identifier))
            return batch
        }
        #expect(batch.count == 5)
        try await appleVerifies(batch, session: session)

        // Through Product.purchase, cancelled at once: the one period ended long ago and nothing renewed.
        let cancelled = try makeSession()
        try await cancelled.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let transaction = try #require(try await monthly.purchase(options: [.purchaseDate(bought, renewalBehavior: .cancelImmediately)]).verifiedTransaction)
            #expect(transaction.purchaseDate == bought)
            #expect(transaction.expirationDate == bought.addingTimeInterval(7 * 86_400))
            #expect(cancelled.allTransactions().count == 1)
            var entitlements: [Transaction] = []
            for await result in Transaction.currentEntitlements { entitlements.append(try result.payloadValue) }
            #expect(entitlements.isEmpty)
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(status.state == .expired)
            await #expect(throws: StoreKitError.self, "a date after now") {
                try await Product.products(for: [Demo.premium]).first?.purchase(options: [.purchaseDate(testStart.addingTimeInterval(86_400))])
            }
        }
    }

    @Test("Each simulated error reaches the API it names and only that one", arguments: SimulatedAPI.allCases)
    func simulatedErrors(api: SimulatedAPI) async throws {
        let session = try makeSession()
        try await session.run {
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let owned = try #require(try await premium.purchase().verifiedTransaction)
            try await api.set(on: session)
            for other in SimulatedAPI.allCases {
                let failed = await other.fails(premium: premium, owned: owned, session: session)
                #expect(failed == (other == api), "\(other) \(failed ? "failed" : "worked") while \(api) was set to fail")
            }
            try await api.clear(on: session)
            #expect(await !api.fails(premium: premium, owned: owned, session: session), "\(api) works again once cleared")
        }
    }

    @Test("The configuration's _storeKitErrors settings turn simulated errors on, as Xcode's StoreKit Errors menu does")
    func configuredErrors() async throws {
        var text = try String(contentsOf: demoConfiguration, encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""enabled" : false,\s*"name" : "Load Products""#,
            with: "\"current\" : { \"index\" : 2, \"type\" : \"generic\" }, \"enabled\" : true, \"name\" : \"Load Products\"",
            options: .regularExpression
        )
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("errors-\(UUID().uuidString).storekit")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = try SKTestSession(contentsOf: file, scope: .isolated, transport: sessionTransport)
        await session.run {
            do {
                _ = try await Product.products(for: [Demo.premium])
                Issue.record("Load Products is set to fail")
            } catch StoreKitError.networkError {
            } catch {
                Issue.record("expected a network error, got \(error)")
            }
        }
        try await session.setSimulatedError(nil, forAPI: .loadProducts)
        let loaded = try await session.run { try await Product.products(for: [Demo.premium]) }
        #expect(loaded.count == 1)
    }

    @Test("SKTestSession.buyProduct(identifier:options:) buys outside the app with options, signing promotional offers itself")
    func buyProductWithOptions() async throws {
        let session = try makeSession()
        let token = UUID()
        let coins = try await session.buyProduct(identifier: Demo.coins, options: [.quantity(2), .appAccountToken(token)])
        #expect(coins.purchasedQuantity == 2)
        #expect(coins.appAccountToken == token)
        let monthly = try await session.buyProduct(identifier: Demo.monthly, options: [.codeOffer(referenceName: "Launch code")])
        #expect(monthly.offer?.type == .code)
        await #expect(throws: SKTestError.self) { try await session.buyProduct(identifier: "com.example.unknown") }
    }

    @Test("SKTestSession.buyProduct(identifier:options:) bills monthly over a 12-month commitment, and wins a lapsed subscriber back with a win-back offer; Apple's library verifies both")
    func buyProductOnPlansAndOffers() async throws {
        let session = try makeSession()
        let committed = try await session.buyProduct(identifier: Demo.yearly, options: [.billingPlanType(.monthly)])
        #expect(committed.billingPlanType == .monthly)
        #expect(committed.price == Decimal(string: "3.50"))
        #expect(committed.commitmentInfo?.billingPeriodNumber == 1)
        #expect(committed.commitmentInfo?.totalBillingPeriods == 12)
        #expect(committed.commitmentInfo?.price == 42)

        let monthly = try #require(try await session.run { try await Product.products(for: [Demo.monthly]) }.first)
        let offer = try #require(monthly.subscription?.winBackOffers.first)
        await #expect(throws: SKTestError.self, "a subscriber is not lapsed") {
            try await session.buyProduct(identifier: Demo.monthly, options: [.winBackOffer(offer)])
        }
        try session.expireSubscription(productIdentifier: Demo.yearly)
        let back = try await session.buyProduct(identifier: Demo.monthly, options: [.winBackOffer(offer)])
        #expect(back.offer?.type == .winBack)
        #expect(back.offer?.id == "plus.monthly.winback")
        #expect(back.price == 0)

        let batch: [[String: String]] = await session.run {
            var batch: [[String: String]] = []
            for await result in Transaction.all { batch.append(["kind": "transaction", "data": result.jwsRepresentation]) }
            return batch
        }
        #expect(batch.count == 2)
        try await appleVerifies(batch, session: session)
    }

    @Test("RenewalInfo.appTransactionID is the customer's app transaction's, as Transaction.appTransactionID and AppTransaction.appTransactionID are")
    func renewalInfoCarriesAppTransactionID() async throws {
        let session = try makeSession()
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            await purchase.finish()
            guard case .verified(let app) = try await AppTransaction.shared else {
                Issue.record("the app transaction verifies")
                return
            }
            #expect(!app.appTransactionID.isEmpty)
            #expect(purchase.appTransactionID == app.appTransactionID)
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(try status.renewalInfo.payloadValue.appTransactionID == app.appTransactionID)
        }
    }

    @Test("AppStore.requestReview(in:) shows every request, as for an app in development, and the session counts them; a purchase confirmed in a view controller completes")
    func reviewRequestsAndViewControllerPurchases() async throws {
        let session = try makeSession()
        #expect(session.reviewRequestsShown == 0)
        try await session.run {
            await MainActor.run {
                AppStore.requestReview(in: UIWindowScene())
                AppStore.requestReview(in: UIWindowScene())
            }
            let premium = try #require(try await Product.products(for: [Demo.premium]).first)
            let transaction = try #require(try await premium.purchase(confirmIn: UIViewController(), options: [.quantity(1)]).verifiedTransaction)
            #expect(transaction.productID == Demo.premium)
            #expect(premium.subscriptionPeriodUnitFormatStyle.format(.month) == "month")
            guard case .verified(let app) = try await AppTransaction.shared else {
                Issue.record("the app transaction verifies")
                return
            }
            #expect(app.originalPlatformStringRepresentation == app.originalPlatform.rawValue)
            #expect(app.storeType == .consumer, "the App Store Server API names only CONSUMER")
            #expect(app.storeTypeStringRepresentation == "CONSUMER")
            let signed = try JSONSerialization.jsonObject(with: app.jsonRepresentation) as? [String: Any]
            #expect(signed?["storeType"] as? String == "CONSUMER", "the signed payload carries storeType")
        }
        #expect(session.reviewRequestsShown == 2)
    }

    @Test("The members Apple deprecated answer what their replacements say: offerID/offerType from offer, currencyCode from currency, the string representations from environment, reason and storefront")
    func deprecatedMembersFollowTheirReplacements() async throws {
        let session = try makeSession()
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            await purchase.finish()
            #expect(purchase.offerID == purchase.offer?.id)
            #expect(purchase.offerType == purchase.offer?.type)
            #expect(purchase.offerPaymentModeStringRepresentation == purchase.offer?.paymentMode?.rawValue)
            #expect(purchase.currencyCode == "USD")
            #expect(purchase.environmentStringRepresentation == purchase.environment.rawValue)
            #expect(purchase.reasonStringRepresentation == "PURCHASE")
            #expect(purchase.storefrontCountryCode == purchase.storefront.countryCode)
            #expect(!purchase.storefrontCountryCode.isEmpty)
            let renewalInfo = try #require(try await monthly.subscription?.status.first).renewalInfo
            let info = try renewalInfo.payloadValue
            #expect(info.currencyCode == info.currency?.identifier)
            #expect(info.environmentStringRepresentation == info.environment.rawValue)
            #expect(info.offerID == info.offer?.id)
        }
    }

    @Test("AppTransaction, AppStore.sync, canMakePayments and Storefront")
    func appStore() async throws {
        let session = try makeSession()
        try await session.run {
            let appTransaction = try await AppTransaction.shared
            guard case .verified(let app) = appTransaction else {
                Issue.record("the app transaction verifies")
                return
            }
            #expect(app.bundleID == session.environment.bundleID)
            #expect(appTransaction.jwsRepresentation.split(separator: ".").count == 3)
            try await AppStore.sync()
            #expect(AppStore.canMakePayments)
            let storefront = await OpenStoreKit.Storefront.current
            #expect(storefront?.countryCode == "USA")
            #expect(storefront?.currency?.identifier == "USD")

            let storefronts = StorefrontCollector()
            storefronts.start()
            try await storefronts.waitForListening(session)
            session.storefront = "FRA"
            let changed = try await storefronts.next()
            #expect(changed.countryCode == "FRA")
            storefronts.stop()
        }
        session.canMakePayments = false
        await session.run { #expect(!AppStore.canMakePayments) }
    }

    @Test("PurchaseIntent.intents delivers promoted purchases; Product.PromotionInfo shares the promotion controller's order")
    func promotions() async throws {
        let session = try makeSession()
        try session.startPromotedPurchase(productIdentifier: Demo.premium)
        try await session.run {
            var intents = PurchaseIntent.intents.makeAsyncIterator()
            let intent = try #require(await intents.next())
            #expect(intent.id == Demo.premium)
            #expect(try await intent.product.purchase().verifiedTransaction?.productID == Demo.premium)

            // A win-back offer chosen on the App Store comes with the intent; this customer never subscribed, so the
            // store refuses it.
            try session.startPromotedPurchase(productIdentifier: Demo.monthly, winBackOfferIdentifier: "plus.monthly.winback")
            let winBack = try #require(await intents.next())
            #expect(winBack.id == Demo.monthly)
            let offer = try #require(winBack.offer)
            #expect(offer.id == "plus.monthly.winback")
            #expect(offer.type == .winBack)
            await #expect(throws: Product.PurchaseError.ineligibleForOffer) { try await winBack.product.purchase(options: [.winBackOffer(offer)]) }
            #expect(throws: SKTestError.self) { try session.startPromotedPurchase(productIdentifier: Demo.monthly, winBackOfferIdentifier: "nope") }

            try await Product.PromotionInfo.updateProductOrder(byID: [Demo.darkTheme, Demo.premium])
            try await Product.PromotionInfo.updateProductVisibility(.hidden, for: Demo.darkTheme)
            let order = try await Product.PromotionInfo.currentOrder
            #expect(order.map(\.productID) == [Demo.darkTheme, Demo.premium])
            #expect(order.first?.visibility == .hidden)
            await #expect(throws: StoreKitError.self) { try await Product.PromotionInfo.updateProductOrder(byID: ["com.example.unknown"]) }
        }
        let controller = SKProductStorePromotionController(paymentQueue: session.paymentQueue)
        #expect(try await controller.promotionOrder().map(\.productIdentifier) == [Demo.darkTheme, Demo.premium])
    }

    @Test("A lapsed subscription with a win-back offer: its renewal info lists the offer, Message.messages says winBackOffer, and the offer brings the customer back free")
    func winBackOfferAfterLapse() async throws {
        let session = try makeSession()
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            #expect(try await monthly.subscription?.status.first?.renewalInfo.payloadValue.eligibleWinBackOfferIDs == [])

            try session.disableAutoRenewForTransaction(identifier: Int(purchase.id))
            try await session.advanceTime(by: 32 * 86_400)
            let status = try #require(try await monthly.subscription?.status.first)
            #expect(status.state == .expired)
            #expect(try status.renewalInfo.payloadValue.eligibleWinBackOfferIDs == ["plus.monthly.winback"])
            var messages = Message.messages.makeAsyncIterator()
            #expect(await messages.next()?.reason == .winBackOffer)

            let offer = try #require(monthly.subscription?.winBackOffers.first)
            let back = try #require(try await monthly.purchase(options: [.winBackOffer(offer)]).verifiedTransaction)
            #expect(back.offer?.type == .winBack)
            #expect(back.price == 0)
        }
    }

    @Test("Message.messages tells the app of a price increase to consent to; the offer-code sheet redeems the code the test typed")
    func messagesAndSheets() async throws {
        let session = try makeSession()
        try await session.run {
            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let purchase = try #require(try await monthly.purchase().verifiedTransaction)
            try session.requestPriceIncreaseConsentForTransaction(identifier: Int(purchase.id))
            var messages = Message.messages.makeAsyncIterator()
            let message = try #require(await messages.next())
            #expect(message.reason == .priceIncreaseConsent)
            try await MainActor.run { try message.display(in: UIWindowScene()) }
            #expect(session.messagesDisplayed == [.priceIncreaseConsent])
            #expect(try await monthly.subscription?.status.first?.renewalInfo.payloadValue.priceIncreaseStatus == .pending)

            try await AppStore.showManageSubscriptions(in: UIWindowScene(), subscriptionGroupID: "DE0A0300")
            #expect(session.manageSubscriptionsSheetsShown == ["DE0A0300"])
        }

        let fresh = try makeSession()
        fresh.offerCodeRedeemSheetEntry = "Launch code"
        try await fresh.run {
            let updates = UpdateCollector()
            updates.start()
            try await updates.waitForListening(fresh)
            try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene())
            let redeemed = try await updates.next()
            #expect(redeemed.productID == Demo.monthly)
            #expect(redeemed.offer?.type == .code)
            updates.stop()
        }

        // iOS 27's sheet returns the redemption's transaction; closing it without a code is a cancellation.
        let returning = try makeSession()
        try await returning.run {
            let closed = await #expect(throws: StoreKitError.self) {
                try await AppStore.presentOfferCodeRedeemSheet(from: UIViewController())
            }
            guard case .userCancelled? = closed else { Issue.record("closing the sheet threw \(String(describing: closed))"); return }
            returning.offerCodeRedeemSheetEntry = "Launch code"
            let redeemed = try await AppStore.presentOfferCodeRedeemSheet(from: UIViewController(), options: [])
            guard case .verified(let transaction) = redeemed else { Issue.record("the redeemed transaction does not verify"); return }
            #expect(transaction.productID == Demo.monthly)
            #expect(transaction.offer?.type == .code)
            #expect(try await Transaction.latest(for: Demo.monthly)?.payloadValue.id == transaction.id)
        }
    }
}

// MARK: - Helpers

extension Product.PurchaseResult {
    /// The transaction of a verified success.
    var verifiedTransaction: Transaction? {
        if case .success(.verified(let transaction)) = self { transaction } else { nil }
    }
}

/// The verified transactions of a sequence, in order.
func verifiedTransactions(_ sequence: Transaction.Transactions) async -> [Transaction] {
    var transactions: [Transaction] = []
    for await result in sequence {
        if case .verified(let transaction) = result { transactions.append(transaction) }
    }
    return transactions
}

/// The identifiers of a sequence's verified transactions, in order.
func verifiedIDs(_ sequence: Transaction.Transactions) async -> [UInt64] {
    await verifiedTransactions(sequence).map(\.id)
}

/// Collects what an endless StoreKit 2 sequence yields, in a task that inherits the session binding.
class Collector<Element: Sendable>: @unchecked Sendable {
    private let received = Locked<[Element]>([])
    private var task: Task<Void, Never>?
    private var taken = 0
    private let makeSequence: @Sendable () -> AsyncStream<Element>

    init(_ makeSequence: @escaping @Sendable () -> AsyncStream<Element>) {
        self.makeSequence = makeSequence
    }

    func start() {
        let received = received
        let stream = makeSequence()
        task = Task {
            for await element in stream { received.withLock { $0.append(element) } }
        }
    }

    func stop() { task?.cancel() }

    /// Waits until `count` update sequences of the session's device have read where the store stands, so a change
    /// made now reaches them.
    func waitForListening(_ session: SKTestSession, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let device = StoreKitDevice.of(session.environment)
        try await eventually(sourceLocation: sourceLocation) { device.listeningSequences.current >= count }
    }

    /// The next element not taken yet; fails after a minute.
    func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Element {
        let index = taken
        try await eventually(sourceLocation: sourceLocation) { self.received.current.count > index }
        taken += 1
        return received.current[index]
    }
}

/// Collects `Transaction.updates`, verified ones only.
final class UpdateCollector: Collector<Transaction>, @unchecked Sendable {
    init() {
        let updates = Transaction.updates
        super.init {
            AsyncStream { continuation in
                let task = Task {
                    for await result in updates {
                        if case .verified(let transaction) = result { continuation.yield(transaction) }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}

/// Collects `Product.SubscriptionInfo.Status.updates`.
final class StatusCollector: Collector<Product.SubscriptionInfo.Status>, @unchecked Sendable {
    init() {
        let updates = Product.SubscriptionInfo.Status.updates
        super.init {
            AsyncStream { continuation in
                let task = Task {
                    for await status in updates { continuation.yield(status) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}

/// Collects `Storefront.updates`.
final class StorefrontCollector: Collector<OpenStoreKit.Storefront>, @unchecked Sendable {
    init() {
        let updates = Storefront.updates
        super.init {
            AsyncStream { continuation in
                let task = Task {
                    for await storefront in updates { continuation.yield(storefront) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }
}

/// A condition that did not come true in time, and where the test waited for it.
struct TimedOut: Error, CustomStringConvertible {
    var location: SourceLocation
    var description: String { "waited a minute in vain at \(location)" }
}

/// Waits until `condition` holds, checking every 10 ms; throws after a minute (a guard against hanging, not a timing
/// requirement: a loaded machine may take seconds).
func eventually(
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw TimedOut(location: sourceLocation)
}

/// The APIs a test can make fail, with how to set each one's error and how to tell that the API failed.
enum SimulatedAPI: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case loadProducts, purchase, verification, appStoreSync, subscriptionStatus, appTransaction, manageSubscriptions
    case refundRequest, offerCodeRedeem

    var testDescription: String { rawValue }

    func set(on session: SKTestSession) async throws {
        switch self {
        case .loadProducts: try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
        case .purchase: try await session.setSimulatedError(.purchase(.productUnavailable), forAPI: .purchase)
        case .verification: try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
        case .appStoreSync: try await session.setSimulatedError(.generic(.userCancelled), forAPI: .appStoreSync)
        case .subscriptionStatus: try await session.setSimulatedError(.generic(.unknown), forAPI: .subscriptionStatus)
        case .appTransaction: try await session.setSimulatedError(.generic(.unknown), forAPI: .appTransaction)
        case .manageSubscriptions: try await session.setSimulatedError(.generic(.unknown), forAPI: .manageSubscriptions)
        case .refundRequest: try await session.setSimulatedError(.refundRequest(.failed), forAPI: .refundRequest)
        case .offerCodeRedeem: try await session.setSimulatedError(.generic(.unknown), forAPI: .offerCodeRedeem)
        }
        switch self {
        case .purchase: #expect(await session.simulatedError(forAPI: .purchase) == .purchase(.productUnavailable))
        case .verification: #expect(await session.simulatedError(forAPI: .verification) == .verification(.invalidSignature))
        default: break
        }
    }

    func clear(on session: SKTestSession) async throws {
        switch self {
        case .loadProducts: try await session.setSimulatedError(nil, forAPI: .loadProducts)
        case .purchase: try await session.setSimulatedError(nil, forAPI: .purchase)
        case .verification: try await session.setSimulatedError(nil, forAPI: .verification)
        case .appStoreSync: try await session.setSimulatedError(nil, forAPI: .appStoreSync)
        case .subscriptionStatus: try await session.setSimulatedError(nil, forAPI: .subscriptionStatus)
        case .appTransaction: try await session.setSimulatedError(nil, forAPI: .appTransaction)
        case .manageSubscriptions: try await session.setSimulatedError(nil, forAPI: .manageSubscriptions)
        case .refundRequest: try await session.setSimulatedError(nil, forAPI: .refundRequest)
        case .offerCodeRedeem: try await session.setSimulatedError(nil, forAPI: .offerCodeRedeem)
        }
        #expect(await session.simulatedError(forAPI: .purchase) == nil)
    }

    /// Whether calling the API now fails the way its simulated error makes it fail.
    func fails(premium: Product, owned: Transaction, session: SKTestSession) async -> Bool {
        do {
            switch self {
            case .loadProducts:
                _ = try await Product.products(for: [Demo.premium])
            case .purchase:
                _ = try await premium.purchase()
            case .verification:
                guard case .verified = await Transaction.latest(for: Demo.premium) else { return true }
            case .appStoreSync:
                try await AppStore.sync()
            case .subscriptionStatus:
                _ = try await Product.SubscriptionInfo.status(for: "DE0A0300")
            case .appTransaction:
                _ = try await AppTransaction.shared
            case .manageSubscriptions:
                try await AppStore.showManageSubscriptions(in: UIWindowScene())
            case .refundRequest:
                session.refundRequestSheetAnswer = .cancel
                _ = try await owned.beginRefundRequest(in: UIWindowScene())
            case .offerCodeRedeem:
                try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene())
            }
            return false
        } catch {
            return true
        }
    }
}
