import Foundation

/// A one-line progress bar on standard error, redrawn in place: `advancing the clock [#####-----]  50%  2027-03-01…`.
struct ProgressBar {
    let title: String
    private let width = 30

    init(title: String) {
        self.title = title
    }

    /// Redraws the bar at `fraction` (0 to 1) with a detail after it.
    func show(fraction: Double, detail: String) {
        let clamped = min(max(fraction, 0), 1)
        let filled = Int((clamped * Double(width)).rounded())
        let percent = Int((clamped * 100).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        write("\r\(title) [\(bar)] \(String(repeating: " ", count: 3 - String(percent).count))\(percent)%  \(detail)")
    }

    /// Ends the bar's line.
    func finish() {
        write("\n")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
