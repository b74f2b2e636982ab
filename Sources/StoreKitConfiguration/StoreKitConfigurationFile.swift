public import Foundation

/// A StoreKit configuration file (`.storekit`), as Xcode writes it: the products an app sells, its
/// subscription groups and offers, and the test environment's settings.
///
/// Load one with ``load(contentsOf:)`` or ``init(data:sourceName:)``. Loading reads every generation of the
/// format (1.0 through 6.3) by the keys present, validates everything the store relies on, and either
/// returns a complete model or throws a ``ConfigurationError`` listing every problem with its place; it
/// never returns a partial model. ``encodedData()`` writes the model back in Xcode's own serialization,
/// keeping keys this library does not model.
///
/// ```swift
/// let configuration = try StoreKitConfigurationFile.load(contentsOf: URL(filePath: "Products.storekit"))
/// for product in configuration.allProducts {
///     print(product.productID, product.displayPrice)
/// }
/// ```
public struct StoreKitConfigurationFile: Sendable, Equatable {
    /// The file's `version` (the Xcode generation that created it).
    public var version: ConfigurationVersion
    /// The configuration's `identifier` (8 hex digits); absent in 1.0 files.
    public var identifier: String?
    /// Consumables and non-consumables (`products`), in file order.
    public var products: [ProductDefinition]
    /// Non-renewing subscriptions (`nonRenewingSubscriptions`), in file order.
    public var nonRenewingSubscriptions: [ProductDefinition]
    /// Subscription groups holding the auto-renewable subscriptions (`subscriptionGroups`).
    public var subscriptionGroups: [SubscriptionGroupDefinition]
    /// The test environment's settings (`settings`).
    public var settings: Settings
    /// The license agreement and privacy policies (`appPolicies`, 4.0+); `nil` when absent.
    public var appPolicies: AppPolicies?
    /// The key for signing promotional offers (`subscriptionOffersKeyPair`); `nil` when none was generated.
    public var offerSigningKey: OfferSigningKey?
    /// Top-level members this library does not model (such as 6.3's `subscriptionBundleGroups`), kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// Creates a configuration in code (version 5.0 by default, as Xcode 26 creates). Written with
    /// ``encodedData()``, it takes the current Xcode's shape.
    public init(
        version: ConfigurationVersion = ConfigurationVersion(major: 5, minor: 0), identifier: String? = nil,
        products: [ProductDefinition] = [], nonRenewingSubscriptions: [ProductDefinition] = [],
        subscriptionGroups: [SubscriptionGroupDefinition] = [], settings: Settings = Settings(),
        appPolicies: AppPolicies? = nil, offerSigningKey: OfferSigningKey? = nil,
        unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.version = version
        self.identifier = identifier
        self.products = products
        self.nonRenewingSubscriptions = nonRenewingSubscriptions
        self.subscriptionGroups = subscriptionGroups
        self.settings = settings
        self.appPolicies = appPolicies
        self.offerSigningKey = offerSigningKey
        self.unknownKeys = unknownKeys
    }

    /// Loads and validates a `.storekit` file. Issues name the file by its last path component.
    ///
    /// - Throws: ``ConfigurationError`` when the file cannot be read, is not JSON, or breaks a rule; the error
    ///   lists every issue found.
    public static func load(contentsOf url: URL) throws(ConfigurationError) -> StoreKitConfigurationFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(
                sourceName: url.lastPathComponent,
                issues: [
                    ConfigurationIssue(
                        code: .unreadableFile, location: .file,
                        message: "The file cannot be read (\(url.path)).",
                        fix: "Check the path and the file's permissions.")
                ])
        }
        return try StoreKitConfigurationFile(data: data, sourceName: url.lastPathComponent)
    }

    /// Parses and validates the bytes of a `.storekit` file.
    ///
    /// - Parameters:
    ///   - data: The file's contents (UTF-8 JSON).
    ///   - sourceName: The name issues use for the file (`Products.storekit`).
    /// - Throws: ``ConfigurationError`` listing every issue; nothing is returned unless the whole file is valid.
    public init(data: Data, sourceName: String = "<memory>") throws(ConfigurationError) {
        try self.init(json: try ConfigurationJSON(parsing: data, sourceName: sourceName), sourceName: sourceName)
    }

    /// Validates a `.storekit` file's JSON parsed already — the `configuration` member of a larger document, say,
    /// read once with ``ConfigurationJSON/init(parsing:sourceName:)`` rather than parsed again from its own bytes.
    ///
    /// - Parameters:
    ///   - json: The file's root value.
    ///   - sourceName: The name issues use for the file.
    /// - Throws: ``ConfigurationError`` listing every issue; nothing is returned unless the whole file is valid.
    public init(json: ConfigurationJSON, sourceName: String = "<memory>") throws(ConfigurationError) {
        let issues = IssueCollector()
        let decoded = ConfigurationDecoder(issues: issues).decodeFile(json)
        guard let decoded, issues.issues.isEmpty else {
            throw ConfigurationError(sourceName: sourceName, issues: issues.issues)
        }
        self = decoded
    }

    /// The file in Xcode's serialization: 2-space indent, `"key" : value`, keys sorted case-insensitively,
    /// empty containers with an empty line inside, `/` unescaped, raw UTF-8, a final newline.
    ///
    /// A file Xcode wrote and this library loaded comes back byte for byte (keys it does not model included),
    /// apart from a missing final newline, which is added.
    public func encodedData() -> Data {
        Data(XcodeJSONWriter.serialize(ConfigurationEncoder.encode(self)).utf8)
    }

    /// Every product of every kind, in the order an Xcode-written file lists them: non-renewing subscriptions,
    /// then `products`, then each group's subscriptions.
    public var allProducts: [ConfiguredProduct] {
        nonRenewingSubscriptions.map(ConfiguredProduct.product) + products.map(ConfiguredProduct.product)
            + subscriptionGroups.flatMap { $0.subscriptions.map(ConfiguredProduct.subscription) }
    }

    /// Every auto-renewable subscription, group by group.
    public var allSubscriptions: [SubscriptionDefinition] {
        subscriptionGroups.flatMap(\.subscriptions)
    }

    /// The product with this identifier, whatever its kind; `nil` if the file has none.
    public func product(withID productID: String) -> ConfiguredProduct? {
        allProducts.first { $0.productID == productID }
    }

    /// The subscription group with this `id`.
    public func subscriptionGroup(withID id: String) -> SubscriptionGroupDefinition? {
        subscriptionGroups.first { $0.id == id }
    }
}
