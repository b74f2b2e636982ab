#if !canImport(UIKit)
/// Stands in for UIKit's scene where UIKit does not exist, so that StoreKit calls that take one
/// (`purchase(confirmIn:options:)`) compile unchanged.
@MainActor
open class UIScene {
    /// A scene.
    public nonisolated init() {}
}

/// Stands in for UIKit's window scene where UIKit does not exist, so that StoreKit calls that take a scene
/// (`beginRefundRequest(in:)`, `showManageSubscriptions(in:)`, `presentOfferCodeRedeemSheet(in:)`,
/// `Message.display(in:)`) compile unchanged.
///
/// There is no screen: the customer's part in each sheet comes from the test environment (`SKTestSession`'s sheet
/// answers), and without one the sheet is answered with the defaults each call documents.
@MainActor
public final class UIWindowScene: UIScene {
    /// A window scene.
    public nonisolated override init() {
        super.init()
    }
}

/// Stands in for UIKit's view controller where UIKit does not exist, so that StoreKit calls that take one
/// (`purchase(confirmIn:options:)`, iOS 18.2) compile unchanged. There is no screen: the purchase goes on as
/// ``Product/purchase(options:)`` does.
@MainActor
open class UIViewController {
    /// A view controller.
    public nonisolated init() {}
}

/// Stands in for AppKit's window where AppKit does not exist, so that StoreKit calls that take one
/// (`purchase(confirmIn:options:)`, `presentOfferCodeRedeemSheet(from:options:)`) compile unchanged. There is no
/// screen: the call goes on as it does without one.
#if !canImport(AppKit)
@MainActor
open class NSWindow {
    /// A window.
    public nonisolated init() {}
}
#endif

extension Product {
    /// Buys the product, confirming in `scene`; with no screen, exactly ``purchase(options:)``.
    @MainActor
    public func purchase(confirmIn scene: some UIScene, options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        try await purchase(options: options)
    }

    /// Buys the product, confirming in the view controller's scene; with no screen, exactly ``purchase(options:)``.
    @MainActor
    public func purchase(confirmIn viewController: UIViewController, options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        try await purchase(options: options)
    }

    /// Buys the product, confirming in the window (macOS 15.2); with no screen, exactly ``purchase(options:)``.
    @MainActor
    public func purchase(confirmIn window: NSWindow, options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        try await purchase(options: options)
    }
}
#endif
