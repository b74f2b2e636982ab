import StoreKitConfiguration
public import AppStoreFormats
public import Foundation

extension StoreEngine {
    /// A transaction as Apple's `JWSTransactionDecodedPayload`, signed now.
    ///
    /// - Throws: ``StoreError`` `invalidTransactionState` for a transaction that never completed (pending,
    ///   interrupted, declined or failed ones have no signed form), `signingFailure` if signing fails.
    public nonisolated func signedTransaction(_ record: TransactionRecord) throws(StoreError) -> String {
        guard record.state.isCompleted else {
            throw StoreError.invalidTransactionState("Transaction \(record.id) is \(record.state); only completed transactions are signed.")
        }
        return try sign(transactionPayload(record))
    }

    /// The signed form of the transaction with the identifier.
    public func signedTransaction(id: UInt64) async throws(StoreError) -> String {
        try signedTransaction(try await transaction(id))
    }

    /// The payload a signed transaction carries, with Apple's field names and units.
    public nonisolated func transactionPayload(_ record: TransactionRecord) -> JWSTransactionDecodedPayload {
        var payload = JWSTransactionDecodedPayload(environment: environment)
        payload.transactionId = String(record.id)
        payload.originalTransactionId = String(record.originalID)
        payload.bundleId = record.bundleID
        payload.productId = record.productID
        payload.purchaseDate = record.purchaseDate
        payload.originalPurchaseDate = record.originalPurchaseDate
        if record.productType == .autoRenewable {
            payload.webOrderLineItemId = String(record.id)
            payload.subscriptionGroupIdentifier = record.subscriptionGroupID
            payload.expiresDate = record.expiresDate
            if record.isUpgraded == true { payload.isUpgraded = true }
            if let offer = record.offer {
                payload.offerType = offer.type
                payload.offerIdentifier = offer.identifier
                payload.offerDiscountType = offer.discountType
                payload.offerPeriod = offer.period.iso8601
            }
        }
        payload.quantity = Int32(record.quantity)
        payload.type = record.productType
        payload.appAccountToken = record.appAccountToken
        payload.inAppOwnershipType = record.ownershipType
        payload.signedDate = clock.now()
        payload.transactionReason = record.origin == .renewal ? .renewal : .purchase
        payload.storefront = record.storefront
        payload.storefrontId = record.storefrontID
        payload.price = Self.milliunits(record.unitPrice * Decimal(record.quantity))
        payload.currency = record.currency
        payload.appTransactionId = Self.appTransactionID(tenant: tenantID, accountID: record.accountID, bundleID: record.bundleID)
        if record.productType == .autoRenewable {
            payload.billingPlanType = record.billingPlanType?.rawValue
            payload.commitmentInfo = record.commitment.map { commitment in
                TransactionCommitmentInfo(
                    billingPeriodNumber: Int32(commitment.billingPeriodNumber), commitmentExpiresDate: commitment.expiresDate,
                    commitmentPrice: Self.milliunits(commitment.price), totalBillingPeriods: Int32(commitment.totalBillingPeriods)
                )
            }
        }
        if let revocationDate = record.revocationDate {
            payload.revocationDate = revocationDate
            payload.revocationReason = record.revocationReason ?? .refundedForOtherReason
            // Advanced Commerce transactions tell refunds item by item (`advancedCommerceInfo.items[].refunds`) instead.
            if record.advancedCommerceInfo == nil {
                payload.revocationType = record.revocationType ?? .refundFull
                payload.revocationPercentage = record.revocationPercentage.map(Int32.init)
            }
        }
        payload.advancedCommerceInfo = record.advancedCommerceInfo
        return payload
    }

    /// A subscription's renewal information as Apple's `JWSRenewalInfoDecodedPayload`, signed now: what
    /// `signedRenewalInfo` carries in the App Store Server API and in notifications.
    ///
    /// - Parameter id: The subscription's original transaction identifier.
    /// - Throws: `StoreError.unknownTransaction` when there is no such subscription, `signingFailure` if signing fails.
    public func signedRenewalInfo(subscription id: UInt64) async throws(StoreError) -> String {
        let (subscription, account) = try await read { storage in
            guard let subscription = try storage.subscription(id: id) else {
                throw StoreError.unknownTransaction("No subscription has original transaction \(id) in this store.")
            }
            return (subscription, try storage.account(id: subscription.accountID))
        }
        return try sign(renewalInfoPayload(subscription, storefront: account?.storefront ?? settings.storefront))
    }

    /// The renewal information of a subscription, with Apple's field names and units; the renewal price is in the
    /// currency of `storefront`, the account's, and `appTransactionId` is the subscriber's app transaction.
    public func renewalInfoPayload(_ subscription: SubscriptionRecord, storefront: String) -> JWSRenewalInfoDecodedPayload {
        var payload = JWSRenewalInfoDecodedPayload(environment: environment)
        payload.originalTransactionId = String(subscription.id)
        payload.productId = subscription.productID
        payload.autoRenewProductId = subscription.autoRenewProductID
        // Within a commitment the next monthly billing comes whatever the customer chose, which decides only the
        // next commitment (`commitmentInfo.commitmentAutoRenewStatus`).
        payload.rawAutoRenewStatus = (subscription.willBillAgain ? AutoRenewStatus.on : .off).rawValue
        payload.rawExpirationIntent = subscription.expirationIntent?.rawValue
        payload.isInBillingRetryPeriod = subscription.isInBillingRetry
        payload.gracePeriodExpiresDate = subscription.status == .gracePeriod ? subscription.gracePeriodExpiresDate : nil
        switch subscription.priceIncrease {
        case .pending: payload.priceIncreaseStatus = .customerHasNotResponded
        case .agreed: payload.priceIncreaseStatus = .customerConsentedOrWasNotifiedWithoutNeedingConsent
        case .declined, nil: break
        }
        payload.signedDate = clock.now()
        payload.recentSubscriptionStartDate = subscription.recentStartDate
        if subscription.status == .active || subscription.isInBillingRetry {
            payload.renewalDate = subscription.expiresDate
            let offer = subscription.autoRenewProductID == subscription.productID ? subscription.nextPeriodOffer : nil
            let product = catalog.product(subscription.nextBillingProductID)
            let billing = product.flatMap { subscription.nextBilling(of: $0, startingAt: subscription.expiresDate, timeRate: settings.timeRate) }
            if subscription.willBillAgain, let billing, let currency = Storefront.named(storefront)?.currency {
                payload.renewalPrice = Self.milliunits(billing.commitment == nil ? offer?.price ?? billing.price : billing.price)
                payload.currency = currency
                if let info = subscription.advancedCommerceInfo {
                    payload.renewalPrice = (info.items ?? []).reduce(0) { $0 + ($1.offer?.price ?? $1.priceIncreaseInfo?.price ?? $1.price ?? 0) }
                }
            }
            payload.renewalBillingPlanType = billing?.planType?.rawValue
            if let commitment = subscription.commitment {
                payload.commitmentInfo = commitmentRenewalInfo(subscription, commitment: commitment)
            }
            if let offer {
                payload.offerType = offer.type
                payload.offerIdentifier = offer.identifier
                payload.offerDiscountType = offer.discountType
                payload.offerPeriod = offer.period.iso8601
            }
        }
        if subscription.status == .expired, let groupID = catalog.product(subscription.productID)?.subscription?.groupID {
            let offers = catalog.eligibleWinBackOfferIDs(groupID: groupID)
            payload.eligibleWinBackOfferIds = offers.isEmpty ? nil : offers
        }
        payload.appAccountToken = subscription.appAccountToken
        payload.appTransactionId = Self.appTransactionID(tenant: tenantID, accountID: subscription.accountID, bundleID: subscription.bundleID)
        payload.advancedCommerceInfo = subscription.advancedCommerceInfo
        return payload
    }

    /// What happens when a subscription's commitment ends (`commitmentInfo` of its renewal info): with auto-renew on,
    /// a new commitment of the product it renews into, on the plan it renews on, from the commitment's end.
    private func commitmentRenewalInfo(_ subscription: SubscriptionRecord, commitment: BillingCommitment) -> RenewalCommitmentInfo {
        var info = RenewalCommitmentInfo(
            commitmentAutoRenewProductId: subscription.autoRenewProductID,
            commitmentAutoRenewStatus: subscription.autoRenewEnabled ? .on : .off,
            commitmentRenewalDate: commitment.expiresDate
        )
        var ended = subscription
        ended.commitment = nil
        if let product = catalog.product(subscription.autoRenewProductID),
           let next = ended.nextBilling(of: product, startingAt: commitment.expiresDate, timeRate: settings.timeRate) {
            info.commitmentRenewalBillingPlanType = next.planType?.rawValue
            if subscription.autoRenewEnabled { info.commitmentRenewalPrice = Self.milliunits(next.commitment?.price ?? next.price) }
        }
        return info
    }

    /// A notification from the outbox as Apple's signed `responseBodyV2` payload (`signedPayload`), signed now:
    /// `data` carries the transaction and, for a subscription, its renewal info and status as they stood when the
    /// change happened.
    ///
    /// - Throws: `StoreError.unknownTransaction` when the transaction was deleted since, `signingFailure` if signing fails.
    public func signedNotification(_ notification: NotificationRecord) async throws(StoreError) -> String {
        if let request = notification.massExtension {
            // RENEWAL_EXTENSION/SUMMARY: `summary` in place of `data`.
            var summary = NotificationSummary(bundleId: request.bundleID, environment: environment)
            summary.appAppleId = appAppleID(bundleID: request.bundleID)
            summary.productId = request.productID
            summary.requestIdentifier = request.requestIdentifier
            summary.storefrontCountryCodes = request.storefrontCountryCodes
            summary.succeededCount = Int64(request.succeededCount)
            summary.failedCount = Int64(request.failedCount)
            var payload = ResponseBodyV2DecodedPayload(notificationType: notification.type, subtype: notification.subtype, notificationUUID: notification.id)
            payload.summary = summary
            payload.signedDate = clock.now()
            return try sign(payload)
        }
        if let token = notification.externalPurchaseToken {
            // EXTERNAL_PURCHASE_TOKEN: the token itself as `externalPurchaseToken`; its identifier tells the environment.
            var payload = ResponseBodyV2DecodedPayload(notificationType: notification.type, subtype: notification.subtype, notificationUUID: notification.id)
            payload.externalPurchaseToken = token.token
            payload.signedDate = clock.now()
            return try sign(payload)
        }
        if notification.type == .rescindConsent {
            // RESCIND_CONSENT: `appData`, with the customer's app transaction, in place of `data`.
            var appData = AppData(bundleId: notification.bundleID, environment: environment)
            appData.appAppleId = appAppleID(bundleID: notification.bundleID)
            appData.signedAppTransactionInfo = try await signedAppTransaction(accountID: notification.accountID, bundleID: notification.bundleID)
            var payload = ResponseBodyV2DecodedPayload(notificationType: notification.type, notificationUUID: notification.id)
            payload.appData = appData
            payload.signedDate = clock.now()
            return try sign(payload)
        }
        let record = try await transaction(notification.transactionID)
        var data = NotificationData(bundleId: notification.bundleID, environment: environment)
        // Apple leaves the app's Apple ID out of sandbox notifications; its verifier checks it in Production.
        if environment == .production { data.appAppleId = appAppleID(bundleID: notification.bundleID) }
        data.bundleVersion = StoreDefaults.appVersion
        data.signedTransactionInfo = try sign(transactionPayload(record))
        if let subscription = notification.subscription {
            var renewalInfo = renewalInfoPayload(subscription, storefront: record.storefront)
            // The app transaction of the customer the notification is about, as in its signed transaction.
            renewalInfo.appTransactionId = Self.appTransactionID(tenant: tenantID, accountID: record.accountID, bundleID: record.bundleID)
            data.signedRenewalInfo = try sign(renewalInfo)
            data.status = subscription.appleStatus
        }
        data.consumptionRequestReason = notification.consumptionRequestReason
        var payload = ResponseBodyV2DecodedPayload(notificationType: notification.type, subtype: notification.subtype, notificationUUID: notification.id)
        payload.data = data
        payload.signedDate = clock.now()
        return try sign(payload)
    }

    /// The app transaction of an account's copy of an app (`AppTransaction`, the App Store Server API's "Get App
    /// Transaction Info"), signed now: the environment as `receiptType`, the app, its first purchase date in the store
    /// as `originalPurchaseDate`, and an `appTransactionId` that stays the same for the account and app.
    ///
    /// - Parameters:
    ///   - accountID: The customer's account.
    ///   - bundleID: The app.
    public func signedAppTransaction(accountID: String, bundleID: String) async throws(StoreError) -> String {
        try sign(try await appTransactionPayload(accountID: accountID, bundleID: bundleID))
    }

    /// The payload of an account's app transaction, signed now: dated and versioned by the account's download of the
    /// app (``recordAppDownload(accountID:bundleID:appVersion:)``); for a store written before downloads were
    /// recorded, by its first purchase in the app.
    func appTransactionPayload(accountID: String, bundleID: String) async throws(StoreError) -> AppTransactionPayload {
        let (download, first) = try await read { storage in
            (try storage.account(id: accountID)?.download(of: bundleID), try storage.transactions(matching: TransactionQuery(accountID: accountID, bundleID: bundleID)).first)
        }
        var payload = AppTransactionPayload(receiptType: environment)
        payload.bundleId = bundleID
        payload.applicationVersion = download?.version ?? StoreDefaults.appVersion
        payload.originalApplicationVersion = originalApplicationVersion(download)
        if environment == .production {
            // Only an app downloaded from the App Store has these; Apple's verifier checks the first in Production.
            payload.appAppleId = appAppleID(bundleID: bundleID)
            payload.versionExternalIdentifier = StoreDefaults.versionExternalIdentifier
        }
        payload.receiptCreationDate = clock.now()
        payload.originalPurchaseDate = download?.date ?? first?.originalPurchaseDate ?? clock.now()
        payload.appTransactionId = Self.appTransactionID(tenant: tenantID, accountID: accountID, bundleID: bundleID)
        payload.rawOriginalPlatform = PurchasePlatform.iOS.rawValue
        payload.storeType = "CONSUMER"
        return payload
    }

    /// The version of the app the account first downloaded, as the app transaction and the receipt carry it: the
    /// download's in Production; "1.0" in the sandbox, as Apple's sandbox always says.
    func originalApplicationVersion(_ download: AppDownload?) -> String {
        environment == .production ? download?.originalVersion ?? StoreDefaults.appVersion : "1.0"
    }

    /// The app's Apple ID (`appAppleId`): the catalog's (a `.storekit` file's `_applicationInternalID`) when it names
    /// one, else the one ``StoreDefaults/appAppleID(bundleID:)`` derives from the bundle identifier. The same in every
    /// process and server on the same catalog.
    public func appAppleID(bundleID: String) -> Int64 {
        catalog.appAppleID ?? StoreDefaults.appAppleID(bundleID: bundleID)
    }

    /// A 19-digit identifier derived from the tenant, account and app, so it is the same in every process.
    ///
    /// FNV-1a, written here: the identifier only has to be stable and spread, not secret, and Swift's `Hasher` is
    /// seeded per process.
    static func appTransactionID(tenant: String, accountID: String, bundleID: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(tenant)\u{1F}\(accountID)\u{1F}\(bundleID)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(7_000_000_000_000_000_000 + hash % 1_000_000_000_000_000_000)
    }

    /// A `TEST` notification for an app, as the App Store Server API's "Request a test notification" sends it, signed
    /// now: `data` carries the bundle identifier and the environment, and in Production the app's Apple ID, which
    /// Apple's verifiers check there (a sandbox test notification has none).
    ///
    /// - Parameters:
    ///   - bundleID: The app the test is for.
    ///   - id: The notification's `notificationUUID`.
    public func signedTestNotification(bundleID: String, id: UUID) throws(StoreError) -> String {
        var payload = ResponseBodyV2DecodedPayload(notificationType: .test, notificationUUID: id)
        var data = NotificationData(bundleId: bundleID, environment: environment)
        if environment == .production { data.appAppleId = appAppleID(bundleID: bundleID) }
        payload.data = data
        payload.signedDate = clock.now()
        return try sign(payload)
    }

    nonisolated func sign(_ payload: some Encodable) throws(StoreError) -> String {
        do {
            return try signer.keys().jws.sign(payload)
        } catch {
            throw StoreError.signingFailure("Could not sign the payload: \(error). Check the certificate authority in the data directory.")
        }
    }

    // MARK: App receipts

    /// The app receipt a device holds: signed PKCS#7 with one in-app record per non-consumable,
    /// non-renewing subscription and auto-renewable subscription purchase and per consumable the device
    /// has not finished.
    ///
    /// Receipts are built when asked for and cached until the purchases they list change, so asking twice in
    /// a row returns the same bytes.
    /// - Parameters:
    ///   - accountID: The customer's account.
    ///   - bundleID: The app's bundle identifier.
    ///   - deviceID: The device the receipt is for; its identifier is hashed into the receipt.
    ///   - appVersion: The app's version (`CFBundleVersion`), attribute 3. Asking records the account's download of the
    ///     app, or the version its device runs now (``recordAppDownload(accountID:bundleID:appVersion:)``).
    public func appReceipt(accountID: String, bundleID: String, deviceID: UUID, appVersion: String = "1") async throws(StoreError) -> Data {
        let download = try await recordAppDownload(accountID: accountID, bundleID: bundleID, appVersion: appVersion)
        let purchases = try await receiptPurchases(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
        let key = ReceiptCacheKey(accountID: accountID, bundleID: bundleID, deviceID: deviceID, appVersion: appVersion)
        if let cached = receiptCache[key], cached.purchases == purchases { return cached.data }
        let receipt = appReceiptContents(purchases: purchases, download: download, deviceID: deviceID, appVersion: appVersion, accountID: accountID)
        let data: Data
        do {
            data = try signer.keys().receipts.sign(receipt)
        } catch {
            throw StoreError.signingFailure("Could not sign the receipt: \(error). Check the certificate authority in the data directory.")
        }
        receiptCache[key] = CachedReceipt(purchases: purchases, data: data)
        return data
    }

    /// The transactions an app receipt lists, oldest first.
    func receiptPurchases(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await read { storage in
            let finished = try storage.transactionsFinished(on: deviceID)
            return try storage.transactions(matching: TransactionQuery(accountID: accountID, bundleID: bundleID)).filter { record in
                guard record.state.isCompleted, record.origin != .restore else { return false }
                switch record.productType {
                case .nonConsumable, .nonRenewable, .autoRenewable: return true
                case .consumable: return !finished.contains(record.id) && (record.deviceID == nil || record.deviceID == deviceID)
                }
            }
        }
    }

    func appReceiptContents(purchases: [TransactionRecord], download: AppDownload, deviceID: UUID, appVersion: String, accountID: String) -> AppReceipt {
        let bundleID = download.bundleID
        // The opaque value is derived, not random, so the engine stays deterministic; it differs per
        // tenant, account, app and device as Apple's does.
        let opaque = AppReceipt.deviceHash(deviceIdentifier: deviceID, opaque: Data("\(tenantID)\u{1F}\(accountID)".utf8), bundleID: bundleID).prefix(16)
        return AppReceipt(
            receiptType: environment.receiptType,
            // The app's Apple ID; 0 outside Production, as Apple's sandbox receipts carry.
            appItemID: environment == .production ? appAppleID(bundleID: bundleID) : 0,
            bundleID: bundleID,
            appVersion: appVersion,
            opaqueValue: Data(opaque),
            sha1Hash: AppReceipt.deviceHash(deviceIdentifier: deviceID, opaque: Data(opaque), bundleID: bundleID),
            creationDate: clock.now(),
            originalPurchaseDate: download.date,
            originalAppVersion: originalApplicationVersion(download),
            // Names the tenant, so a receipt posted to Apple's bare verifyReceipt reaches the store that issued it.
            issuingStore: tenantID,
            inAppPurchases: purchases.map { record in
                InAppPurchaseReceipt(
                    quantity: record.quantity, productID: record.productID, transactionID: String(record.id),
                    originalTransactionID: String(record.originalID), purchaseDate: record.purchaseDate,
                    originalPurchaseDate: record.originalPurchaseDate, productType: record.productType,
                    expiresDate: record.expiresDate,
                    webOrderLineItemID: record.productType == .autoRenewable ? Int64(record.id) : nil,
                    cancellationDate: record.revocationDate,
                    isTrialPeriod: record.offer?.discountType == .freeTrial,
                    isInIntroOfferPeriod: record.offer.map { $0.type == .introductoryOffer && $0.discountType != .freeTrial } ?? false,
                    promotionalOfferID: record.offer?.type == .promotionalOffer ? record.offer?.identifier : nil
                )
            }
        )
    }

    static func milliunits(_ amount: Decimal) -> Int64 {
        var scaled = amount * 1000
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        return NSDecimalNumber(decimal: rounded).int64Value
    }
}

/// Which receipt a cache entry holds.
struct ReceiptCacheKey: Hashable, Sendable {
    var accountID: String
    var bundleID: String
    var deviceID: UUID
    var appVersion: String
}

/// A signed receipt and the purchases it was built from.
struct CachedReceipt: Sendable {
    var purchases: [TransactionRecord]
    var data: Data
}

extension AppStoreEnvironment {
    /// How app receipts name this environment (attribute 0).
    var receiptType: String {
        switch self {
        case .production: "Production"
        case .xcode: "Xcode"
        default: "ProductionSandbox"
        }
    }
}
