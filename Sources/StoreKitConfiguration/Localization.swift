/// A product's or subscription group's name and description in one locale.
public struct Localization: Sendable, Equatable {
    /// The locale in Xcode's underscore form: `en_US`, `fr`, `zh_Hans`.
    public var locale: String
    /// The name shown to customers (`Product.displayName`; for a group, the group's display name).
    public var displayName: String
    /// The description shown to customers (`Product.description`). May be empty.
    public var description: String
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates a localization.
    public init(locale: String, displayName: String, description: String = "", unknownKeys: [String: ConfigurationJSON] = [:]) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
        self.unknownKeys = unknownKeys
    }
}
