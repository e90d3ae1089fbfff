#include "parametereditor.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>

namespace mms {

namespace {
    QString valueText(const OJson& v) { return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()); }
    bool isScalar(const OJson& v) { return v.is_primitive() && !v.is_null(); }
} // namespace

ParameterEditor::ParameterEditor(QWidget* parent)
    : QWidget(parent)
    , m_error(new QLabel(this))
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_form = new QWidget(scroll);
    scroll->setWidget(m_form);
    new QVBoxLayout(m_form);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->hide();
    auto* reset = new QPushButton(tr("Reset to the scenario's values"), this);
    connect(reset, &QPushButton::clicked, this, [this] {
        if (m_original) {
            m_current = std::make_unique<Scenario>(*m_original);
            rebuild();
            Q_EMIT scenarioEdited();
        }
    });
    lay->addWidget(scroll, 1);
    lay->addWidget(m_error);
    lay->addWidget(reset);
}

void ParameterEditor::setScenario(const Scenario& sc)
{
    m_original = std::make_unique<Scenario>(sc);
    m_current = std::make_unique<Scenario>(sc);
    rebuild();
}

void ParameterEditor::addField(QFormLayout* form, const QString& path, const OJson& value, const QString& label)
{
    auto* edit = new QLineEdit(valueText(value), m_form);
    edit->setToolTip(path);
    form->addRow(label, edit);
    m_fields.emplace_back(path, edit);
    connect(edit, &QLineEdit::textEdited, this, [this, path](const QString& text) { apply(path, text); });
}

void ParameterEditor::rebuild()
{
    m_fields.clear();
    m_variants.clear();
    m_invalid.clear();
    auto* outer = static_cast<QVBoxLayout*>(m_form->layout());
    while (QLayoutItem* item = outer->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_error->hide();
    if (!m_current)
        return;
    const OJson& d = m_current->json();
    auto group = [&](const QString& title) {
        auto* box = new QGroupBox(title, m_form);
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        outer->addWidget(box);
        return form;
    };
    QFormLayout* machine = group(tr("Machine"));
    for (auto& [k, v] : d["machine"].items())
        if (isScalar(v))
            addField(machine, QStringLiteral("machine.") + QString::fromStdString(k), v, QString::fromStdString(k));
    if (d["machine"].contains("swap") && !d["machine"]["swap"].empty() && d["sweep"].empty())
        addField(machine, QStringLiteral("swap.devices"), OJson(d["machine"]["swap"].size()), tr("swap devices"));
    QFormLayout* workload = group(tr("Workload (%1)").arg(valueText(d["workload"].value("kind", OJson("")))));
    for (auto& [k, v] : d["workload"].items())
        if (isScalar(v) && k != "kind")
            addField(workload, QStringLiteral("workload.") + QString::fromStdString(k), v, QString::fromStdString(k));
    QFormLayout* run = group(tr("Run"));
    addField(run, QStringLiteral("reps"), d["reps"], tr("repetitions"));
    addField(run, QStringLiteral("seed"), d["seed"], tr("seed"));
    for (auto& [axis, values] : d["sweep"].items())
        addField(run, QString::fromStdString(axis), values, tr("sweep %1").arg(QString::fromStdString(axis)));
    for (auto& [name, toggles] : d["variants"].items()) {
        auto* box = new QGroupBox(QString::fromStdString(name), m_form);
        box->setCheckable(true);
        box->setChecked(true);
        box->setToolTip(tr("Run this variant"));
        auto* form = new QFormLayout(box);
        for (auto& [t, v] : toggles.items())
            addField(form, QStringLiteral("variants.%1.%2").arg(QString::fromStdString(name), QString::fromStdString(t)), v,
                     QString::fromStdString(t));
        outer->addWidget(box);
        auto* check = new QCheckBox(box);
        check->hide();
        connect(box, &QGroupBox::toggled, this, [this](bool) { Q_EMIT scenarioEdited(); });
        connect(box, &QGroupBox::toggled, check, &QCheckBox::setChecked);
        check->setChecked(true);
        m_variants.emplace_back(name, check);
    }
    outer->addStretch(1);
}

bool ParameterEditor::apply(const QString& path, const QString& value)
{
    QLineEdit* edit = field(path);
    try {
        Scenario copy = *m_current;
        const std::string p = path.toStdString(), v = value.toStdString();
        if (path.startsWith(QLatin1String("variants."))) {
            // variants.NAME.TOGGLE: one variant's toggle, validated by re-normalising the whole document.
            const int dot = path.indexOf(QLatin1Char('.'), 9);
            const std::string variant = path.mid(9, dot - 9).toStdString(), toggle = path.mid(dot + 1).toStdString();
            OJson doc = copy.json();
            OJson parsed = OJson::parse(v, nullptr, false);
            doc["variants"][variant][toggle] = parsed.is_discarded() ? OJson(v) : parsed;
            copy = Scenario::fromJson(doc, "variants." + variant + "." + toggle);
        } else
            copy.set(p, v);
        *m_current = std::move(copy);
        m_invalid.erase(path);
        if (edit)
            edit->setStyleSheet(QString());
        m_error->hide();
        Q_EMIT scenarioEdited();
        return true;
    } catch (const std::exception& e) {
        if (edit)
            edit->setStyleSheet(QStringLiteral("QLineEdit { border: 2px solid #d03030; }"));
        m_error->setText(QString::fromStdString(e.what()));
        m_error->show();
        m_invalid[path] = m_error->text();
        return false;
    }
}

bool ParameterEditor::edit(const QString& path, const QString& value)
{
    if (QLineEdit* e = field(path))
        e->setText(value);
    return apply(path, value);
}

bool ParameterEditor::setEverywhere(const QString& path, const QString& value)
{
    std::vector<std::string> unchecked;
    for (auto& [name, check] : m_variants)
        if (!check->isChecked())
            unchecked.push_back(name);
    if (!apply(path, value))
        return false;
    rebuild();
    for (auto* box : m_form->findChildren<QGroupBox*>())
        if (box->isCheckable() && std::find(unchecked.begin(), unchecked.end(), box->title().toStdString()) != unchecked.end())
            box->setChecked(false);
    return true;
}

QLineEdit* ParameterEditor::field(const QString& path) const
{
    for (auto& [p, e] : m_fields)
        if (p == path)
            return e;
    return nullptr;
}

QString ParameterEditor::lastError() const { return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString(); }

std::vector<std::pair<QString, QString>> ParameterEditor::invalidFields() const
{
    std::vector<std::pair<QString, QString>> out;
    for (auto& [path, edit] : m_fields)
        if (auto it = m_invalid.find(path); it != m_invalid.end())
            out.emplace_back(path, it->second);
    return out;
}

std::shared_ptr<const Scenario> ParameterEditor::scenario() const
{
    if (!m_current)
        return {};
    auto sc = std::make_shared<Scenario>(*m_current);
    std::vector<std::string> keep;
    for (auto& [name, check] : m_variants)
        if (check->isChecked())
            keep.push_back(name);
    if (!keep.empty() && keep.size() != m_variants.size())
        sc->selectVariants(keep);
    return sc;
}

} // namespace mms
