import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { LegalPage, type LegalSection } from '../components/LegalPage';

/** /privacy-policy (spec §1, §2): what Cara collects, how the AI uses it, and the reader's rights. */
const PrivacyPolicy = () => {
    const { t } = useTranslation('legal');
    const sections: LegalSection[] = [
        {
            id: 'scope',
            title: t('Who this policy applies to'),
            paragraphs: [
                t(
                    'This policy applies to doctors who register themselves, doctors registered by their hospital, hospitals and platform administrators. Hospitals that register doctors must tell those doctors about this policy.',
                ),
            ],
        },
        {
            id: 'information-we-collect',
            title: t('Information we collect'),
            paragraphs: [t('We collect only what the service needs to work:')],
            items: [
                t(
                    'Account details: name, email address, phone number, password (stored only as a secure hash) and your role.',
                ),
                t(
                    'Professional details of doctors: specialty, licence number, years of experience, country, state or province, availability, and any education, certifications and work history added to the profile.',
                ),
                t(
                    'Hospital details: name, address, type, registration number, bed capacity, country, state or province and website.',
                ),
                t(
                    'Session content: when you use an assistant, the audio from your microphone, the camera or screen images you choose to share, and the transcripts and summaries produced during the session.',
                ),
                t(
                    "Subscription and payment records: plan, billing cycle, status and payment dates. Card details are entered with our payment provider and never reach Cara's servers.",
                ),
                t(
                    'Security information: activity logs such as sign-in attempts and the network address they came from, used to protect accounts.',
                ),
            ],
            closing: [
                t(
                    "Your language, theme and sign-in session are kept in your own browser's storage so that the application remembers them.",
                ),
            ],
        },
        {
            id: 'how-ai-is-used',
            title: t('How AI is used'),
            paragraphs: [
                t(
                    "Cara works with a first opinion and a second opinion. The first opinion is always given by a qualified clinician, such as a radiologist reading an image. Cara's AI gives the second opinion: it reviews the same material, points out findings that may deserve another look and helps draft reports and summaries.",
                ),
                t(
                    "During a live session, your audio and the images you share are streamed to a hosted generative AI service that produces Cara's spoken and written replies. This content is processed to answer you; it is not used for advertising.",
                ),
                t('The AI can be wrong. Its output is a suggestion to be checked, never a diagnosis on its own.'),
            ],
        },
        {
            id: 'clinical-responsibility',
            title: t('Clinical responsibility'),
            paragraphs: [
                t(
                    "Cara is an assistant. The clinician using it remains responsible for every clinical decision, report and treatment, and for checking each AI suggestion against the patient's full clinical picture.",
                ),
                t(
                    'Share patient information with Cara only when you are allowed to, and leave out identifying details (names, record numbers) that the task does not need.',
                ),
            ],
        },
        {
            id: 'how-we-use-information',
            title: t('How we use information'),
            items: [
                t('To create and protect your account and let you sign in.'),
                t('To run the assistant sessions you start and show you their transcripts and summaries.'),
                t('To let hospitals manage the doctors they registered and their subscription.'),
                t('To manage subscriptions and payments.'),
                t('To keep the service safe, detect misuse and meet our legal obligations.'),
            ],
            closing: [t('We do not sell personal information.')],
        },
        {
            id: 'sharing',
            title: t('Sharing and transfers'),
            paragraphs: [t('We share information only with:')],
            items: [
                t('the hosted AI service that processes live sessions;'),
                t('the payment provider that handles subscriptions;'),
                t('the hospital that registered you, which can see and manage your doctor account;'),
                t('authorities, when the law requires it.'),
            ],
            closing: [
                t(
                    'These providers may process information outside your country. We use them only with safeguards suited to personal and health data.',
                ),
            ],
        },
        {
            id: 'security',
            title: t('Security'),
            paragraphs: [
                t(
                    "Information travels over encrypted connections. Passwords are stored as salted hashes, each hospital's data is kept in its own separate space, and every request is checked against the account's role and organisation. Administrators join only by invitation.",
                ),
                t(
                    'No system is perfectly secure. Use a strong password, do not share your account, and tell us at once if you suspect someone else has used it.',
                ),
            ],
        },
        {
            id: 'retention',
            title: t('Retention'),
            paragraphs: [
                t(
                    'Account and profile information is kept while the account is active. Session content is kept only as long as needed to provide the transcripts and summaries you asked for. Payment records are kept as long as accounting law requires.',
                ),
                t(
                    'When an account is closed, its personal information is deleted or anonymised, unless the law requires us to keep it.',
                ),
            ],
        },
        {
            id: 'your-rights',
            title: t('Your rights'),
            paragraphs: [
                t(
                    'Data protection laws in Africa and the Caribbean give you rights over your information. Depending on where you live, you can:',
                ),
            ],
            items: [
                t('see and correct your profile information in the application;'),
                t('ask for a copy of the information we hold about you;'),
                t('ask us to delete your account and information;'),
                t('object to some processing or ask us to restrict it;'),
                t("complain to your country's data protection authority."),
            ],
            closing: [t('Doctors registered by a hospital can also make these requests through their hospital administrator.')],
        },
        {
            id: 'changes',
            title: t('Changes to this policy'),
            paragraphs: [
                t(
                    'We may update this policy as the service changes. The date at the top shows the current version; important changes are announced in the application.',
                ),
            ],
        },
        {
            id: 'contact',
            title: t('Contact'),
            paragraphs: [
                t(
                    "For questions about this policy or to exercise your rights, contact the Cara team through the support channel provided with your account or your hospital's subscription. We reply within 30 days.",
                ),
            ],
        },
    ];
    return (
        <LegalPage
            title={t('Privacy Policy')}
            intro={t(
                'Cara is an AI clinical assistant for doctors and hospitals in Africa and the Caribbean. This policy explains what information Cara collects when you use the web application, why, how the AI assistant uses it and what choices you have.',
            )}
            sections={sections}
            related={
                <Trans
                    t={t}
                    i18nKey="The rules for using Cara are in the <page>{{title}}</page>."
                    values={{ title: t('Terms and Conditions') }}
                    components={{ page: <Link to={paths.terms} /> }}
                />
            }
        />
    );
};

export default PrivacyPolicy;
