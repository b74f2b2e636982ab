import AppStoreEngine
import Foundation

extension Transaction {
    /// Shows the refund request sheet for a transaction. With no screen, the customer's answer comes from the test
    /// environment (`SKTestSession.refundRequestSheetAnswer`), else the request is submitted. A submitted request is
    /// approved, and the refunded transaction arrives through ``updates``; a request whose reason is `REJECT` is
    /// declined, as in the sandbox, and the app's server hears `REFUND_DECLINED`.
    ///
    /// When the store's refund requests await a decision (its `refundRequestsAwaitDecision` setting), the request is
    /// pending instead, as App Store review runs it: the app's server hears `CONSUMPTION_REQUEST` (its
    /// `consumptionRequestReason` the sheet's reason when that is one of Apple's values, such as `UNINTENDED_PURCHASE`,
    /// else `OTHER`) and may send
    /// consumption information, and a test decides through the control API, `storekit tx decide-refund` or the
    /// transaction manager; a refund then arrives through ``updates``, and a later reversal brings the transaction back.
    ///
    /// - Returns: ``RefundRequestStatus/success`` when the customer submitted the request,
    ///   ``RefundRequestStatus/userCancelled`` when they closed the sheet.
    /// - Throws: ``RefundRequestError/duplicateRequest`` for a transaction already refunded,
    ///   ``RefundRequestError/failed`` for one the customer does not own, ``StoreKitError`` when the store cannot
    ///   be reached.
    @MainActor
    public static func beginRefundRequest(for transactionID: UInt64, in scene: UIWindowScene) async throws -> Transaction.RefundRequestStatus {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .refundRequest)
        guard case .submit(let reason) = device.sheets.withLock({ $0.refundRequest }) else { return .userCancelled }
        let accountID = device.environment.accountID
        let answer = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try await device.environment.connection.requestRefund(
                transactionID: transactionID, accountID: accountID, approve: answer != "REJECT", reason: answer.isEmpty ? nil : answer
            )
        } catch StoreError.invalidTransactionState {
            throw RefundRequestError.duplicateRequest
        } catch StoreError.unknownTransaction {
            throw RefundRequestError.failed
        } catch {
            throw StoreKitError(error)
        }
        return .success
    }

    /// Shows the refund request sheet for this transaction; see ``beginRefundRequest(for:in:)``.
    @MainActor
    public func beginRefundRequest(in scene: UIWindowScene) async throws -> Transaction.RefundRequestStatus {
        try await Self.beginRefundRequest(for: id, in: scene)
    }
}

extension AppStore {
    /// Shows the sheet where the customer manages their subscriptions. With no screen, the store records that the
    /// sheet was shown (`SKTestSession.manageSubscriptionsSheetsShown`) and the customer closes it; changes they
    /// would make there reach the app through `Transaction.updates` when a test makes them.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot be reached.
    @MainActor
    public static func showManageSubscriptions(in scene: UIWindowScene) async throws {
        try await showManageSubscriptions(group: "")
    }

    /// Shows the manage-subscriptions sheet for one subscription group; see ``showManageSubscriptions(in:)``.
    @MainActor
    public static func showManageSubscriptions(in scene: UIWindowScene, subscriptionGroupID: String) async throws {
        try await showManageSubscriptions(group: subscriptionGroupID)
    }

    private static func showManageSubscriptions(group: String) async throws {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .manageSubscriptions)
        let accountID = device.environment.accountID
        _ = try await device.call { connection throws(StoreError) in try await connection.account(accountID) }
        device.sheets.withLock { $0.manageSubscriptionsShown.append(group) }
    }

    /// Shows the sheet where the customer redeems an offer code. With no screen, the code comes from the test
    /// environment (`SKTestSession.offerCodeRedeemSheetEntry`); without one the customer closes the sheet. The
    /// transaction a redeemed code makes arrives through `Transaction.updates`.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot be reached or refuses the code.
    @MainActor
    public static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws {
        _ = try await redeemOfferCodeFromSheet()
    }

    /// Shows the sheet where the customer redeems an offer code, and returns the transaction the redemption makes
    /// (iOS 27). With no screen, the code comes from the test environment (`SKTestSession.offerCodeRedeemSheetEntry`);
    /// the transaction also arrives through `Transaction.updates`, as one made outside the app does.
    ///
    /// - Throws: `StoreKitError.userCancelled` when the customer closes the sheet without a code (no entry is set),
    ///   another ``StoreKitError`` when the store cannot be reached or refuses the code.
    @MainActor
    public static func presentOfferCodeRedeemSheet(
        from viewController: UIViewController, options: Set<RedeemOption> = []
    ) async throws -> VerificationResult<Transaction> {
        try await redeemedTransaction()
    }

    /// Shows the sheet where the customer redeems an offer code, and returns the transaction the redemption makes
    /// (macOS 27), as the view controller's spelling does.
    @MainActor
    public static func presentOfferCodeRedeemSheet(
        from window: NSWindow, options: Set<RedeemOption> = []
    ) async throws -> VerificationResult<Transaction> {
        try await redeemedTransaction()
    }

    /// Redeems the code the customer typed into the sheet: the transaction it made, signed for this device, or
    /// `StoreKitError.userCancelled` when the customer typed none.
    private static func redeemedTransaction() async throws -> VerificationResult<Transaction> {
        guard let (device, record) = try await redeemOfferCodeFromSheet() else { throw StoreKitError.userCancelled }
        guard let transaction = try await device.verifiedTransactions([record]).first else {
            throw StoreKitError.unknown
        }
        return transaction
    }

    /// Redeems the code the test environment typed into the sheet, if any.
    private static func redeemOfferCodeFromSheet() async throws -> (StoreKitDevice, TransactionRecord)? {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .offerCodeRedeem)
        guard let code = device.sheets.withLock({ $0.offerCode }) else { return nil }
        let (accountID, bundleID) = (device.environment.accountID, device.environment.bundleID)
        let record = try await device.call { connection throws(StoreError) in try await connection.redeemOfferCode(code, accountID: accountID, bundleID: bundleID) }
        return (device, record)
    }
}

/// An option that changes how an offer code redemption behaves (iOS 27), passed to
/// `AppStore.presentOfferCodeRedeemSheet(from:options:)`. Apple documents no options yet; the type exists so code that
/// passes a set of them compiles.
public struct RedeemOption: Hashable, Sendable {
    private init() {}
}

extension AppStore {
    /// Asks the customer to rate or review the app in `scene`. As for an app in development on iOS, where StoreKit
    /// shows the prompt every time, each request is shown: with no screen, the device records it
    /// (`SKTestSession.reviewRequestsShown`), and the customer dismisses it. Does nothing when the process has no
    /// store.
    @MainActor
    public static func requestReview(in scene: UIWindowScene) {
        guard let device = try? StoreKitDevice.current() else { return }
        device.sheets.withLock { $0.reviewRequestsShown += 1 }
    }
}
