#pragma once
// A main window as the GUI suites open it: no layout restored from the user's settings, errors in the status bar
// instead of message boxes.

#include "mainwindow.h"

namespace mms::test {

inline MainWindow::Options quietWindow()
{
    MainWindow::Options o;
    o.restoreLayout = false;
    o.dialogs = false;
    return o;
}

} // namespace mms::test
