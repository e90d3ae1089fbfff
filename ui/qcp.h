#pragma once
// qcustomplot.h spells Qt's keyword macros (signals, slots, emit, foreach), which this project switches off with
// QT_NO_KEYWORDS (oneTBB declares a function emit()). Map them for the one include, then drop them again.
// Include this only from the .cpp files of plot widgets: qcustomplot.h pulls in all of QtPrintSupport.

#include <QtGlobal>

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
