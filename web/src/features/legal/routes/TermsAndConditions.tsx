import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { LegalPage, type LegalSection } from '../components/LegalPage';

/** /terms-and-conditions (spec §1, §2): the rules of using Cara, clinical responsibility first. */
const TermsAndConditions = () => {
    const { t } = useTranslation('legal');
    const sections: LegalSection[] = [
        {
            id: 'the-service',
            title: t('The service'),
            paragraphs: [
                t(
                    'Cara gives doctors live voice and video assistants for radiology, radiotherapy, cardiology, primary care and nursing, and gives hospitals tools to manage their doctors and subscription.',
                ),
                t(
                    "Radiologists and other clinicians give the first opinion; Cara's AI offers a second opinion that supports their judgement and never replaces it.",
                ),
            ],
        },
        {
            id: 'accounts',
            title: t('Accounts'),
            items: [
                t(
                    'Give accurate information, including a valid licence number for doctors and a valid registration number for hospitals.',
                ),
                t('Keep your password confidential. You are responsible for what is done with your account.'),
                t(
                    'Hospitals may register and manage doctor accounts only for clinicians who work with them and who have accepted these terms.',
                ),
                t('Administrator accounts are created only by invitation from an existing administrator.'),
            ],
        },
        {
            id: 'clinical-responsibility',
            title: t('Clinical responsibility'),
            paragraphs: [
                t('Cara is an assistant, not a medical device that makes decisions. Its answers may be incomplete or wrong.'),
                t(
                    "The clinician remains fully responsible for diagnosis, reports, treatment and every decision about the patient. Always check AI suggestions against the images, the patient's history, local guidelines and your own professional judgement.",
                ),
                t("Cara is not meant for emergencies. In an emergency, follow your facility's emergency procedures."),
            ],
        },
        {
            id: 'patient-data',
            title: t('Patient data'),
            paragraphs: [
                t(
                    "Share patient information with Cara only when the law and your facility's rules allow it, including any consent they require, and only what the task needs.",
                ),
            ],
        },
        {
            id: 'acceptable-use',
            title: t('Acceptable use'),
            paragraphs: [t('You must not:')],
            items: [
                t('use the service for anything unlawful or outside healthcare practice;'),
                t('try to reach accounts, hospitals or data that are not yours;'),
                t('disrupt, overload or reverse-engineer the service;'),
                t("present AI output as a clinician's opinion without reviewing it."),
            ],
        },
        {
            id: 'subscriptions',
            title: t('Subscriptions and payment'),
            paragraphs: [
                t(
                    "Independent doctors need an active subscription to use the assistants; doctors registered by a hospital use their hospital's subscription.",
                ),
                t(
                    'Plans are billed in advance, monthly or annually, through our payment provider, and renew until cancelled. Prices and plan limits are shown before you pay.',
                ),
            ],
        },
        {
            id: 'availability',
            title: t('Availability'),
            paragraphs: [
                t(
                    'We work to keep Cara available but cannot promise uninterrupted service. Live sessions depend on your connection and on third-party AI and payment services.',
                ),
            ],
        },
        {
            id: 'intellectual-property',
            title: t('Intellectual property'),
            paragraphs: [
                t(
                    'Cara and its software remain ours. You keep your rights in the content you provide and allow us to process it only to run the service for you.',
                ),
            ],
        },
        {
            id: 'liability',
            title: t('Liability'),
            paragraphs: [
                t(
                    'As far as the law allows, Cara is provided as it is, and we are not liable for clinical decisions taken with its help or for indirect losses. Nothing in these terms limits a liability that the law does not allow to be limited.',
                ),
            ],
        },
        {
            id: 'termination',
            title: t('Suspension and termination'),
            paragraphs: [
                t(
                    'You may stop using Cara at any time. We may suspend or close accounts that break these terms or put patients, users or the service at risk.',
                ),
            ],
        },
        {
            id: 'changes',
            title: t('Changes to these terms'),
            paragraphs: [
                t(
                    'We may change these terms. The date at the top shows the current version; using Cara after a change means you accept it.',
                ),
            ],
        },
        {
            id: 'contact',
            title: t('Contact'),
            paragraphs: [
                t(
                    "Questions about these terms can be sent to the Cara team through the support channel provided with your account or your hospital's subscription.",
                ),
            ],
        },
    ];
    return (
        <LegalPage
            title={t('Terms and Conditions')}
            intro={t(
                'These terms govern the use of Cara, an AI clinical assistant for doctors and hospitals in Africa and the Caribbean. By creating an account or using the service, you accept them.',
            )}
            sections={sections}
            related={
                <Trans
                    t={t}
                    i18nKey="How we handle personal information is explained in the <page>{{title}}</page>."
                    values={{ title: t('Privacy Policy') }}
                    components={{ page: <Link to={paths.privacyPolicy} /> }}
                />
            }
        />
    );
};

export default TermsAndConditions;
