import Foundation

/// Downloads of hosted content. Each download advances one chunk per step on ``SKPaymentQueue/downloadQueue``
/// and schedules its next chunk only after the observers were told of the last one, so a download never runs
/// ahead of the app: pausing or cancelling from `paymentQueue(_:updatedDownloads:)` takes effect before the
/// next chunk. Pause, resume and cancel are steps on the same serial queue.
extension SKPaymentQueue {
    /// How many bytes a download copies per step.
    static let downloadChunkSize = 64 * 1024

    /// Starts downloads (``SKPaymentQueue/start(_:)``).
    func startDownloads(_ downloads: [SKDownload]) {
        for download in downloads {
            onDownloadQueue {
                guard !download.transaction.isFinished.current, download.state == .waiting else { return }
                self.step(download)
            }
        }
    }

    /// Pauses downloads (``SKPaymentQueue/pause(_:)``).
    func pauseDownloads(_ downloads: [SKDownload]) {
        for download in downloads {
            onDownloadQueue {
                let paused = download.progressState.withLock { progress -> Bool in
                    guard progress.state == .active || progress.state == .waiting else { return false }
                    progress.state = .paused
                    progress.activeSince = nil
                    progress.timeRemaining = SKDownloadTimeRemainingUnknown
                    return true
                }
                if paused { self.announce(download) }
            }
        }
    }

    /// Resumes downloads (``SKPaymentQueue/resume(_:)``).
    func resumeDownloads(_ downloads: [SKDownload]) {
        for download in downloads {
            onDownloadQueue {
                let resumed = download.progressState.withLock { progress -> Bool in
                    guard progress.state == .paused else { return false }
                    progress.state = .active
                    return true
                }
                if resumed { self.step(download) }
            }
        }
    }

    /// Cancels downloads (``SKPaymentQueue/cancel(_:)``).
    func cancelDownloads(_ downloads: [SKDownload]) {
        for download in downloads {
            onDownloadQueue {
                let destination = download.progressState.withLock { progress -> URL?? in
                    guard progress.state != .finished, progress.state != .failed, progress.state != .cancelled else { return nil }
                    progress.state = .cancelled
                    progress.timeRemaining = SKDownloadTimeRemainingUnknown
                    return .some(progress.destination)
                }
                guard let destination else { return }
                if let destination { try? FileManager.default.removeItem(at: destination) }
                self.announce(download)
            }
        }
    }

    /// Copies the next chunk of a download and schedules the one after it.
    private func step(_ download: SKDownload) {
        do {
            let done = try download.progressState.withLock { progress throws -> Bool? in
                guard progress.state == .waiting || progress.state == .active else { return nil }
                if progress.files == nil {
                    progress.files = ContentFiles.list(in: download.content.location)
                    progress.destination = try downloadDirectory(for: download)
                }
                if progress.state == .waiting || progress.activeSince == nil {
                    progress.state = .active
                    progress.activeSince = .now
                    progress.bytesAtResume = progress.copiedBytes
                }
                try copyChunk(of: download, progress: &progress)
                if progress.fileIndex >= progress.files!.count {
                    progress.state = .finished
                    progress.contentURL = progress.destination
                    progress.timeRemaining = 0
                    return true
                }
                let elapsed = progress.activeSince.map { ContinuousClock.now - $0 } ?? .zero
                let copied = progress.copiedBytes - progress.bytesAtResume
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                progress.timeRemaining = copied > 0 && seconds > 0
                    ? Double(download.content.length - progress.copiedBytes) / (Double(copied) / seconds)
                    : SKDownloadTimeRemainingUnknown
                return false
            }
            guard let done else { return }
            announce(download) {
                if !done { self.onDownloadQueue { self.step(download) } }
            }
        } catch {
            download.progressState.withLock { progress in
                progress.state = .failed
                progress.error = SKError(.unknown, userInfo: [
                    NSLocalizedDescriptionKey: "Downloading the content of \(download.contentIdentifier) failed: \(error.localizedDescription)",
                ])
            }
            announce(download)
        }
    }

    private func copyChunk(of download: SKDownload, progress: inout SKDownload.Progress) throws {
        guard let files = progress.files, let destination = progress.destination, progress.fileIndex < files.count else { return }
        let file = files[progress.fileIndex]
        let source = download.content.location.appendingPathComponent(file.relativePath)
        let target = destination.appendingPathComponent(file.relativePath)
        if progress.offsetInFile == 0 {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: target.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
            }
        }
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        try input.seek(toOffset: UInt64(progress.offsetInFile))
        let chunk = try input.read(upToCount: Self.downloadChunkSize) ?? Data()
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        try output.seekToEnd()
        try output.write(contentsOf: chunk)
        progress.offsetInFile += Int64(chunk.count)
        progress.copiedBytes += Int64(chunk.count)
        if chunk.count < Self.downloadChunkSize || progress.offsetInFile >= file.size {
            progress.fileIndex += 1
            progress.offsetInFile = 0
        }
    }

    private func downloadDirectory(for download: SKDownload) throws -> URL {
        let environment = try environment()
        let name = download.transaction.transactionIdentifier ?? UUID().uuidString
        let directory = environment.appDirectory
            .appendingPathComponent("Downloads", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
            .appendingPathComponent(download.contentIdentifier, isDirectory: true)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Tells the observers about a download on the callback queue, then runs `next`.
    private func announce(_ download: SKDownload, then next: @escaping @Sendable () -> Void = {}) {
        pendingWork.begin()
        callbackQueue.async {
            for observer in self.observers { observer.paymentQueue(self, updatedDownloads: [download]) }
            next()
            self.pendingWork.end()
        }
    }

    /// Runs a download step on the download queue, counted as pending work until it returns.
    private func onDownloadQueue(_ step: @escaping @Sendable () -> Void) {
        pendingWork.begin()
        downloadQueue.async {
            step()
            self.pendingWork.end()
        }
    }
}
