/// A tenant's settings as storage keeps them: the ``StoreSettings`` last changed through an engine, and a version
/// that grows with every change, so an engine sees in one small read whether another one changed them.
///
/// A tenant whose settings were never changed has none stored (version 0) and runs with its configuration's. Settings
/// are configuration, not store state: erasing or restoring a tenant (``StorageChange/eraseTenant``,
/// ``StorageChange/restore(_:)``) leaves them, and tenant snapshots do not carry them. A tenant reset
/// (`StoreEngine.erase()`) goes back to the configuration's settings by storing `nil`.
public struct StoredSettings: Sendable, Hashable {
    /// One more with each ``StorageChange/saveSettings(_:)`` of the tenant; 0 when its settings were never changed.
    public var version: Int
    /// The settings the tenant runs with; `nil` for its configuration's (never changed, or reset).
    public var settings: StoreSettings?

    /// Describes stored settings; the defaults describe a tenant whose settings were never changed.
    public init(version: Int = 0, settings: StoreSettings? = nil) {
        self.version = version
        self.settings = settings
    }
}
