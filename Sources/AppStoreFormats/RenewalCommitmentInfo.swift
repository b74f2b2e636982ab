public import Foundation

/// What happens when a monthly subscription's 12-month commitment ends (`commitmentInfo` of signed renewal info,
/// Apple's `RenewalCommitmentInfo`).
///
/// The customer may turn the commitment's renewal off at any time; the monthly billings of the current commitment
/// go on regardless, and only the renewal into a new commitment stops.
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    /// The product the subscription commits to next (`commitmentAutoRenewProductId`).
    public var commitmentAutoRenewProductId: String?
    /// The raw `commitmentAutoRenewStatus` value; see ``commitmentAutoRenewStatus``.
    public var rawCommitmentAutoRenewStatus: Int32?
    /// The raw `commitmentRenewalBillingPlanType` value, `BILLED_UPFRONT` or `MONTHLY`.
    public var commitmentRenewalBillingPlanType: String?
    /// When the current commitment ends and the next one would start.
    public var commitmentRenewalDate: Date?
    /// The next commitment's total price, in milliunits of the renewal info's currency.
    public var commitmentRenewalPrice: Int64?

    /// Creates commitment renewal information; unset fields are left out of the JSON.
    public init(
        commitmentAutoRenewProductId: String? = nil, commitmentAutoRenewStatus: AutoRenewStatus? = nil,
        commitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Date? = nil, commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
        self.rawCommitmentAutoRenewStatus = commitmentAutoRenewStatus?.rawValue
        self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }

    /// Whether the subscription enters a new commitment when this one ends (`commitmentAutoRenewStatus`).
    public var commitmentAutoRenewStatus: AutoRenewStatus? {
        get { rawCommitmentAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
        set { rawCommitmentAutoRenewStatus = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case commitmentAutoRenewProductId
        case rawCommitmentAutoRenewStatus = "commitmentAutoRenewStatus"
        case commitmentRenewalBillingPlanType, commitmentRenewalDate, commitmentRenewalPrice
    }
}
