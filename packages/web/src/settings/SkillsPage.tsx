/**
 * The skills page: every installed skill with a switch that enables or disables it through
 * `PUT /api/skills/{name}`. The switch shows the state the server answered with, so a refused change
 * snaps back and says why.
 */
import { useCallback, useEffect, useState } from "react";
import { apiFetch } from "../api";
import { t, useLocale } from "../i18n";

/** One skill as `GET /api/skills` lists it. */
export interface Skill {
  name: string;
  display_name?: string;
  description?: string;
  enabled: boolean;
}

/** Props of {@link SkillsPage}. */
export interface SkillsPageProps {
  apiKey: string | undefined;
}

/** Lists skills with enable/disable switches. */
export function SkillsPage({ apiKey }: SkillsPageProps) {
  useLocale();
  const [skills, setSkills] = useState<Skill[]>();
  const [error, setError] = useState<string>();

  const load = useCallback(async () => {
    try {
      const response = await apiFetch("/skills", apiKey);
      setSkills(((await response.json()) as { skills: Skill[] }).skills);
      setError(undefined);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [apiKey]);

  useEffect(() => {
    void load();
  }, [load]);

  const toggle = async (skill: Skill, enabled: boolean) => {
    try {
      const response = await apiFetch(`/skills/${encodeURIComponent(skill.name)}`, apiKey, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ enabled }),
      });
      const updated = (await response.json()) as Skill;
      setSkills((current) =>
        current?.map((item) => (item.name === updated.name ? { ...item, enabled: updated.enabled } : item)),
      );
      setError(undefined);
    } catch (failure) {
      setError(`${skill.name}: ${(failure as Error).message}`);
    }
  };

  return (
    <section className="settings-page" aria-label={t("settings.tab.skills")}>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {skills === undefined ? (
        <p className="muted small">{t("skills.loading")}</p>
      ) : skills.length === 0 ? (
        <p className="muted small">{t("skills.empty")}</p>
      ) : (
        <ul className="skills">
          {skills.map((skill) => (
            <li key={skill.name} className="skill" data-testid="skill">
              <label className="row">
                <input
                  type="checkbox"
                  // biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox carries its checked state
                  role="switch"
                  aria-label={t("skills.enable", { name: skill.name })}
                  checked={skill.enabled}
                  onChange={(event) => void toggle(skill, event.target.checked)}
                />
                <span>
                  <strong>{skill.display_name ?? skill.name}</strong>
                  {skill.description && <span className="muted small skill-description">{skill.description}</span>}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
