import Foundation

@testable import AppStoreFormats

/// Sample payloads with fixed values.
enum Samples {
    static let bundleID = "com.example.openstorekit"
    /// 2025-06-01T11:00:00Z, an hour before `Fixtures.now`.
    static let signedDate = Date(timeIntervalSince1970: 1_748_775_600)
    static let purchaseDate = Date(timeIntervalSince1970: 1_748_772_000)
    static let appAccountToken = UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138")!
    static let device = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    static func transaction(_ type: ProductType, id: String = "2000000000000001") -> JWSTransactionDecodedPayload {
        var payload = JWSTransactionDecodedPayload()
        payload.transactionId = id
        payload.originalTransactionId = id
        payload.bundleId = bundleID
        payload.productId = "\(bundleID).\(type.receiptValue)"
        payload.purchaseDate = purchaseDate
        payload.originalPurchaseDate = purchaseDate
        payload.quantity = 1
        payload.type = type
        payload.appAccountToken = appAccountToken
        payload.inAppOwnershipType = .purchased
        payload.signedDate = signedDate
        payload.transactionReason = .purchase
        payload.storefront = "USA"
        payload.storefrontId = "143441"
        payload.price = 9990
        payload.currency = "USD"
        payload.appTransactionId = "704289572311000001"
        if type == .autoRenewable {
            payload.webOrderLineItemId = "2000000000000101"
            payload.subscriptionGroupIdentifier = "21289261"
            payload.expiresDate = purchaseDate.addingTimeInterval(30 * 86_400)
            payload.offerType = .introductoryOffer
            payload.offerDiscountType = .freeTrial
            payload.offerPeriod = "P1W"
        }
        if type == .nonRenewable {
            payload.expiresDate = purchaseDate.addingTimeInterval(365 * 86_400)
        }
        return payload
    }

    static func renewalInfo() -> JWSRenewalInfoDecodedPayload {
        var payload = JWSRenewalInfoDecodedPayload()
        payload.originalTransactionId = "2000000000000001"
        payload.autoRenewProductId = "\(bundleID).3"
        payload.productId = "\(bundleID).3"
        payload.autoRenewStatus = .on
        payload.signedDate = signedDate
        payload.recentSubscriptionStartDate = purchaseDate
        payload.renewalDate = purchaseDate.addingTimeInterval(30 * 86_400)
        payload.renewalPrice = 9990
        payload.currency = "USD"
        payload.appTransactionId = "704289572311000001"
        return payload
    }

    static func appTransaction() -> AppTransactionPayload {
        var payload = AppTransactionPayload()
        payload.appAppleId = 0
        payload.bundleId = bundleID
        payload.applicationVersion = "42"
        payload.receiptCreationDate = signedDate
        payload.originalPurchaseDate = purchaseDate
        payload.originalApplicationVersion = "1.0"
        payload.appTransactionId = "704289572311000001"
        payload.originalPlatform = .iOS
        return payload
    }

    static func notification(signer: JWSSigner) throws -> ResponseBodyV2DecodedPayload {
        var payload = ResponseBodyV2DecodedPayload(
            notificationType: .subscribed, subtype: .initialBuy,
            notificationUUID: UUID(uuidString: "592751EF-C1B8-47FC-929E-D62DEE66DF4C")!
        )
        var data = NotificationData(bundleId: bundleID)
        data.bundleVersion = "42"
        data.signedTransactionInfo = try signer.sign(transaction(.autoRenewable))
        data.signedRenewalInfo = try signer.sign(renewalInfo())
        data.status = .active
        payload.data = data
        payload.signedDate = signedDate
        return payload
    }

    static func receipt(purchases: [ProductType] = ProductType.allCases) -> AppReceipt {
        var receipt = AppReceipt(
            receiptType: "ProductionSandbox",
            bundleID: bundleID,
            appVersion: "42",
            opaqueValue: Data((0..<16).map { UInt8($0 * 7) }),
            creationDate: signedDate,
            originalPurchaseDate: Date(timeIntervalSince1970: 1_375_340_400),
            originalAppVersion: "1.0"
        )
        for (index, type) in purchases.enumerated() {
            let id = "\(2_000_000_000_000_001 + index)"
            receipt.inAppPurchases.append(
                InAppPurchaseReceipt(
                    productID: "\(bundleID).\(type.receiptValue)",
                    transactionID: id,
                    originalTransactionID: id,
                    purchaseDate: purchaseDate,
                    originalPurchaseDate: purchaseDate,
                    productType: type,
                    expiresDate: type == .autoRenewable ? purchaseDate.addingTimeInterval(30 * 86_400) : nil,
                    webOrderLineItemID: type == .autoRenewable ? 2_000_000_000_000_101 : 0,
                    isTrialPeriod: type == .autoRenewable,
                    promotionalOfferID: type == .autoRenewable ? "promo.3m" : nil
                )
            )
        }
        receipt.setDeviceHash(deviceIdentifier: device)
        return receipt
    }
}
