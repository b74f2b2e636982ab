#if !canImport(UIKit)
/// Stands in for UIKit's window scene where UIKit does not exist, so that StoreKit calls that take a scene
/// (`beginRefundRequest(in:)`, `showManageSubscriptions(in:)`, `presentOfferCodeRedeemSheet(in:)`,
/// `Message.display(in:)`) compile unchanged.
///
/// There is no screen: the customer's part in each sheet comes from the test environment (`SKTestSession`'s sheet
/// answers), and without one the sheet is answered with the defaults each call documents.
@MainActor
public final class UIWindowScene: Sendable {
    /// A scene.
    public nonisolated init() {}
}
#endif
