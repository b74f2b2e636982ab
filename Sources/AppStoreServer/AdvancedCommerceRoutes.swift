import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The Advanced Commerce API's server endpoints (`/advancedCommerce/v1/…`), authenticated like the App Store Server
/// API and answered with Apple's error codes (`AdvancedCommerceAPIError`).
///
/// | endpoint | what the store does |
/// |---|---|
/// | `POST /advancedCommerce/v1/subscription/cancel/{transactionId}` | auto-renew off (`DID_CHANGE_RENEWAL_STATUS`) |
/// | `POST /advancedCommerce/v1/subscription/revoke/{transactionId}` | ends the subscription now, full or prorated refund (`REFUND`) |
/// | `POST /advancedCommerce/v1/subscription/changeMetadata/{transactionId}` | new descriptors/SKUs now or at renewal (`METADATA_UPDATE`) |
/// | `POST /advancedCommerce/v1/subscription/changePrice/{transactionId}` | new item prices from the next renewal (`PRICE_CHANGE`) |
/// | `POST /advancedCommerce/v1/subscription/migrate/{transactionId}` | an In-App Purchase subscription continues as a generic product (`MIGRATION`) |
/// | `POST /advancedCommerce/v1/transaction/requestRefund/{transactionId}` | refunds (and revokes) items (`REFUND`, `REFUND_DECLINED`) |
struct AdvancedCommerceRoutes {
    let engine: StoreEngine
    let authenticator: ServerAPIAuthenticator
    let logger: Logger

    /// The answer of every endpoint: the transaction and, for a subscription, its renewal info, signed now.
    struct Response: Encodable {
        var signedRenewalInfo: String?
        var signedTransactionInfo: String
    }

    func add(to router: Router<StoreRequestContext>) {
        let api = router.group("advancedCommerce/v1")
        api.post("subscription/cancel/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceSubscriptionRevokeRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                return try await engine.cancelAdvancedCommerceSubscription(transactionID: id)
            }
        }
        api.post("subscription/revoke/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceSubscriptionRevokeRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                guard body.refundRiskingPreference != nil else { throw AdvancedCommerceAPIError.nullRefundRisking }
                guard let type = body.refundType else { throw AdvancedCommerceAPIError.nullRefundType }
                guard type == "FULL" || type == "PRORATED" else { throw AdvancedCommerceAPIError.invalidRefundType }
                guard let reason = body.refundReason else { throw AdvancedCommerceAPIError.nullRefundReason }
                guard AdvancedCommerceRefund.reasons.contains(reason) else { throw AdvancedCommerceAPIError.invalidRefundReason }
                return try await engine.revokeAdvancedCommerceSubscription(transactionID: id, refundType: type, refundReason: reason)
            }
        }
        api.post("transaction/requestRefund/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceRequestRefundRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                guard let items = body.items else { throw AdvancedCommerceAPIError.nullItems }
                guard !items.isEmpty else { throw AdvancedCommerceAPIError.atLeastOneItem }
                guard body.refundRiskingPreference != nil else { throw AdvancedCommerceAPIError.nullRefundRisking }
                for item in items {
                    if let error = AdvancedCommerceAPIError.check(sku: item.sku) { throw error }
                    guard item.revoke != nil else { throw AdvancedCommerceAPIError.malformedPayload }
                    guard let reason = item.refundReason else { throw AdvancedCommerceAPIError.nullRefundReason }
                    guard AdvancedCommerceRefund.reasons.contains(reason) else { throw AdvancedCommerceAPIError.invalidRefundReason }
                    guard let type = item.refundType else { throw AdvancedCommerceAPIError.nullRefundType }
                    guard AdvancedCommerceRefund.types.contains(type) else { throw AdvancedCommerceAPIError.invalidRefundType }
                    if type == "CUSTOM" {
                        guard let amount = item.refundAmount else { throw AdvancedCommerceAPIError.nullRefundAmount }
                        guard amount > 0 else { throw AdvancedCommerceAPIError.negativeRefundAmount }
                    } else if item.refundAmount != nil {
                        throw AdvancedCommerceAPIError.refundAmountWithoutCustom
                    }
                }
                return try await engine.requestAdvancedCommerceRefund(transactionID: id, items: items)
            }
        }
        api.post("subscription/changeMetadata/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceSubscriptionChangeMetadataRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                let effectives = [AdvancedCommerceSubscriptionChangeMetadataRequest.immediately, AdvancedCommerceSubscriptionChangeMetadataRequest.nextBillCycle]
                if let descriptors = body.descriptors {
                    guard let effective = descriptors.effective else { throw AdvancedCommerceAPIError.nullEffective }
                    guard effectives.contains(effective) else { throw AdvancedCommerceAPIError.malformedPayload }
                    guard descriptors.description != nil || descriptors.displayName != nil else {
                        throw AdvancedCommerceAPIError.atLeastOneOfDisplayNameOrDescription
                    }
                    if let error = Self.checkLengths(description: descriptors.description, displayName: descriptors.displayName) { throw error }
                }
                if let items = body.items {
                    guard !items.isEmpty else { throw AdvancedCommerceAPIError.atLeastOneItem }
                    for item in items {
                        guard item.currentSKU != nil else { throw AdvancedCommerceAPIError.nullCurrentSKU }
                        guard let effective = item.effective else { throw AdvancedCommerceAPIError.nullEffective }
                        guard effectives.contains(effective) else { throw AdvancedCommerceAPIError.malformedPayload }
                        if let sku = item.sku, let error = AdvancedCommerceAPIError.check(sku: sku) { throw error }
                        if let error = Self.checkLengths(description: item.description, displayName: item.displayName) { throw error }
                    }
                }
                if let taxCode = body.taxCode, taxCode.isEmpty { throw AdvancedCommerceAPIError.invalidTaxProductCode }
                return try await engine.changeAdvancedCommerceMetadata(transactionID: id, body)
            }
        }
        api.post("subscription/changePrice/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceSubscriptionPriceChangeRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                guard let items = body.items else { throw AdvancedCommerceAPIError.nullItems }
                guard !items.isEmpty else { throw AdvancedCommerceAPIError.atLeastOneItem }
                for item in items {
                    if let error = AdvancedCommerceAPIError.check(sku: item.sku) { throw error }
                    guard let price = item.price else { throw AdvancedCommerceAPIError.nullPrice }
                    guard price >= 0 else { throw AdvancedCommerceAPIError.negativePrice }
                }
                return try await engine.changeAdvancedCommercePrice(transactionID: id, items: items)
            }
        }
        api.post("subscription/migrate/:transactionId") { request, context in
            let body = try? await request.decode(as: AdvancedCommerceSubscriptionMigrateRequest.self, context: context)
            return try await respond(to: request, context: context) { id in
                guard let body else { throw AdvancedCommerceAPIError.malformedPayload }
                if let error = AdvancedCommerceAPIError.check(body.requestInfo) { throw error }
                guard let descriptors = body.descriptors else { throw AdvancedCommerceAPIError.nullDescriptors }
                if let error = AdvancedCommerceAPIError.check(descriptors) { throw error }
                guard let items = body.items else { throw AdvancedCommerceAPIError.nullItems }
                guard !items.isEmpty else { throw AdvancedCommerceAPIError.atLeastOneItem }
                for item in items + (body.renewalItems ?? []) {
                    if let error = AdvancedCommerceAPIError.check(sku: item.sku) { throw error }
                    if let error = AdvancedCommerceAPIError.check(AdvancedCommerceDescriptors(description: item.description, displayName: item.displayName)) { throw error }
                }
                guard body.targetProductId != nil else { throw AdvancedCommerceAPIError.nullTargetProductID }
                guard let taxCode = body.taxCode else { throw AdvancedCommerceAPIError.nullTaxCode }
                guard !taxCode.isEmpty else { throw AdvancedCommerceAPIError.invalidTaxProductCode }
                return try await engine.migrateToAdvancedCommerce(transactionID: id, body)
            }
        }
    }

    /// Lengths of changed names and descriptions.
    private static func checkLengths(description: String?, displayName: String?) -> AdvancedCommerceAPIError? {
        if let description, description.count > 45 { return .descriptionLengthExceeded }
        if let displayName, displayName.count > 30 { return .displayNameLengthExceeded }
        return nil
    }

    /// Authenticates the request, finds the app's transaction the path names, runs `body` on it, and answers the
    /// signed transaction and renewal info, or Apple's error.
    private func respond(
        to request: Request, context: StoreRequestContext,
        _ body: @escaping (UInt64) async throws -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError>
    ) async throws -> Hummingbird.Response {
        try await ServerAPIResponder(authenticator: authenticator, logger: logger).respond(to: request) { bundleID in
            do {
                guard let text = context.parameters.get("transactionId"), let id = UInt64(text) else { throw AdvancedCommerceAPIError.invalidTransactionId }
                guard let record = try? await engine.transaction(id), record.state.isCompleted else {
                    throw AdvancedCommerceAPIError.transactionIdNotFound
                }
                guard record.bundleID == bundleID else {
                    throw ServerAPIResponder.TokenNotForApp(reason: "The token's bid \(bundleID) is not the app of transaction \(id) (\(record.bundleID)); sign the token with that app's bundle ID.")
                }
                let outcome = try await body(id).get()
                let renewal: String? = if let subscription = outcome.subscription {
                    try await engine.signedRenewalInfo(subscription: subscription.id)
                } else { nil }
                return Response(signedRenewalInfo: renewal, signedTransactionInfo: try engine.signedTransaction(outcome.transaction))
            } catch let error as AdvancedCommerceAPIError {
                logger.notice("Advanced Commerce API request refused: \(error)")
                throw ServerAPIError(status: HTTPResponse.Status(code: error.status), errorCode: error.errorCode, errorMessage: error.errorMessage)
            } catch let error as StoreError {
                logger.error("Advanced Commerce API request failed: \(error.message)")
                throw ServerAPIError.generalInternalRetryable
            }
        }
    }
}
