/// The platform of the original app purchase (`originalPlatform`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum PurchasePlatform: String, Codable, Hashable, Sendable, CaseIterable {
    /// `iOS`.
    case iOS = "iOS"
    /// `macOS`.
    case macOS = "macOS"
    /// `tvOS`.
    case tvOS = "tvOS"
    /// `visionOS`.
    case visionOS = "visionOS"
}
