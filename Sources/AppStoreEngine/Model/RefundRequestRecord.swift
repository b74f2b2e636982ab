public import AppStoreFormats
public import Foundation

/// A customer's refund request for a transaction, as the App Store keeps it while it decides, and afterwards.
///
/// A store whose ``StoreSettings/refundRequestsAwaitDecision`` is on keeps every request pending: the app's server
/// hears `CONSUMPTION_REQUEST` (for a consumable, a non-renewing or an auto-renewable subscription), may send
/// consumption information (``consumption``), and a test decides with `StoreEngine.decideRefundRequest(transactionID:_:)`.
/// The transaction the request is for holds its latest request (``TransactionRecord/refundRequest``).
public struct RefundRequestRecord: Sendable, Hashable, Codable {
    /// Where a refund request stands.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Waiting for the App Store's decision.
        case pending
        /// Refunded, in full or prorated (`REFUND`).
        case refunded
        /// Declined (`REFUND_DECLINED`).
        case declined
        /// Refunded, then reversed (`REFUND_REVERSED`).
        case reversed
    }

    /// When the customer asked, on the store's clock.
    public var requestDate: Date
    /// Why the customer asked (`consumptionRequestReason` of `CONSUMPTION_REQUEST`).
    public var reason: ConsumptionRequestReason
    /// Where the request stands.
    public var status: Status
    /// When the App Store decided or reversed it, on the store's clock.
    public var decisionDate: Date?
    /// The consumption information the app's server sent for the request (Send Consumption Information), oldest first.
    public var consumption: [ConsumptionInformation]

    /// Describes a request.
    public init(
        requestDate: Date, reason: ConsumptionRequestReason, status: Status = .pending, decisionDate: Date? = nil,
        consumption: [ConsumptionInformation] = []
    ) {
        self.requestDate = requestDate
        self.reason = reason
        self.status = status
        self.decisionDate = decisionDate
        self.consumption = consumption
    }
}

/// What an app's server sent with the App Store Server API's Send Consumption Information, kept with the refund
/// request it answers.
public struct ConsumptionInformation: Sendable, Hashable, Codable {
    /// When the store received it, on the store's clock.
    public var date: Date
    /// The endpoint's version: 1 (`/inApps/v1/transactions/consumption`, deprecated by Apple) or 2.
    public var version: Int
    /// The request body's fields, as one JSON object with sorted keys.
    public var fields: String

    /// Describes consumption information.
    public init(date: Date, version: Int, fields: String) {
        self.date = date
        self.version = version
        self.fields = fields
    }
}

/// How the App Store decides a pending refund request (`StoreEngine.decideRefundRequest(transactionID:_:)`).
public enum RefundDecision: Sendable, Hashable {
    /// Refund in full: `REFUND` with `revocationType` `REFUND_FULL`.
    case refundFull
    /// Refund part of the price: `REFUND` with `revocationType` `REFUND_PRORATED` and `revocationPercentage` in
    /// milli-percent (1 to 100000; 50000 is 50%).
    case refundProrated(percentage: Int)
    /// Decline: `REFUND_DECLINED`; the transaction stays.
    case decline
}
