/// The status of an auto-renewable subscription (notification `data.status`, Get All Subscription Statuses).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum Status: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `1`.
    case active = 1
    /// `2`.
    case expired = 2
    /// `3`.
    case billingRetry = 3
    /// `4`.
    case billingGracePeriod = 4
    /// `5`.
    case revoked = 5
}
