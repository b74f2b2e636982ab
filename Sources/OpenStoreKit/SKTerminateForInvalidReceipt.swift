import Foundation

/// Ends the app because its receipt is invalid, as StoreKit does when the license to use the app expired.
///
/// The process exits with status 173, the status macOS apps use to ask for a new receipt.
public func SKTerminateForInvalidReceipt() {
    exit(173)
}
