/// The App Store environment a payload belongs to (`environment`, and `receiptType` for app transactions).
///
/// Apple's verifiers check the signature only for `Sandbox` and `Production`; `Xcode` and `LocalTesting` skip it.
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum AppStoreEnvironment: String, Codable, Hashable, Sendable, CaseIterable {
    /// `Sandbox`.
    case sandbox = "Sandbox"
    /// `Production`.
    case production = "Production"
    /// `Xcode`.
    case xcode = "Xcode"
    /// `LocalTesting`.
    case localTesting = "LocalTesting"
}
