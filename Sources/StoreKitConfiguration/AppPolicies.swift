/// The app's license agreement and privacy policy (`appPolicies`, 4.0+ files), shown as links on StoreKit's
/// subscription sheets.
public struct AppPolicies: Sendable, Equatable {
    /// A privacy policy in one locale.
    public struct Policy: Sendable, Equatable {
        /// The locale (`en_US`).
        public var locale: String
        /// The policy as text; may be empty.
        public var policyText: String
        /// The policy's URL; may be empty.
        public var policyURL: String
        /// Members this library does not model, kept for the round trip.
        public var unknownKeys: [String: ConfigurationJSON]
        var layout = KeyLayout()

        /// Creates a policy.
        public init(locale: String, policyText: String = "", policyURL: String = "", unknownKeys: [String: ConfigurationJSON] = [:]) {
            self.locale = locale
            self.policyText = policyText
            self.policyURL = policyURL
            self.unknownKeys = unknownKeys
        }
    }

    /// The license agreement: empty (Apple's standard EULA), a full text, or a URL.
    public var eula: String
    /// Privacy policies, one per locale.
    public var policies: [Policy]
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates app policies.
    public init(eula: String = "", policies: [Policy] = [], unknownKeys: [String: ConfigurationJSON] = [:]) {
        self.eula = eula
        self.policies = policies
        self.unknownKeys = unknownKeys
    }
}
