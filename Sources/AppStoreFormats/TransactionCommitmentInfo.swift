public import Foundation

/// Where a transaction of a monthly subscription with a 12-month commitment stands in its commitment
/// (`commitmentInfo` of a signed transaction, Apple's `TransactionCommitmentInfo`).
///
/// Only transactions billed on the `MONTHLY` plan carry it; each monthly billing is a transaction of its own.
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing of the commitment the transaction is, from 1 to ``totalBillingPeriods``.
    public var billingPeriodNumber: Int32?
    /// When the commitment ends: the end of its last billing period.
    public var commitmentExpiresDate: Date?
    /// The commitment's total price, in milliunits of the transaction's currency.
    public var commitmentPrice: Int64?
    /// How many monthly billings the commitment has (12).
    public var totalBillingPeriods: Int32?

    /// Creates commitment information; unset fields are left out of the JSON.
    public init(
        billingPeriodNumber: Int32? = nil, commitmentExpiresDate: Date? = nil, commitmentPrice: Int64? = nil,
        totalBillingPeriods: Int32? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
        self.totalBillingPeriods = totalBillingPeriods
    }

    enum CodingKeys: String, CodingKey {
        case billingPeriodNumber, commitmentExpiresDate, commitmentPrice, totalBillingPeriods
    }
}
