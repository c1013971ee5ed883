#pragma once
// A file the user asked a view to save from the view's own menu (a plot's image or data).
// views/ opens no dialogs: a view emits the request, and app/ asks where to save it, calls
// `write` and reports a failure (MainWindow::answerSaveRequest).

#include <QString>
#include <QStringList>
#include <functional>

namespace spanscope::views {

struct SaveRequest
{
    QString caption;       // what is being saved, as a dialog title ("Save Plot Image")
    QStringList filters;   // one file-dialog filter per format ("PNG image (*.png)")
    QStringList suffixes;  // the suffix of each filter, lower case ("png")
    QString suggestedName; // a file name without folder or suffix
    // Writes the file to `path`; false and a sentence in `error` on failure.
    std::function<bool(const QString& path, QString* error)> write;
};

} // namespace spanscope::views
